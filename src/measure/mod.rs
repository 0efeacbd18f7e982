//! Measuring: nvidia-smi (hardware ceilings), the batch sweep, the decode
//! ramp, and nsys profiles, each also readable from saved output.

pub mod commands;
pub mod decode;
pub mod dmon;
pub mod fps;
pub mod gpu;
pub mod hw;
pub mod live;
pub mod nsys;
pub mod profile;
pub mod run;
pub mod sweep;
pub mod variant;
