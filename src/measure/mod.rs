//! Measuring: nvidia-smi (hardware ceilings), the batch sweep, and nsys
//! profiles, each also readable from saved output.

pub mod commands;
pub mod dmon;
pub mod fps;
pub mod gpu;
pub mod nsys;
pub mod profile;
pub mod run;
pub mod sweep;
pub mod variant;
