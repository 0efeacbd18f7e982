//! One module per parser: a token-based generator and the checks.

pub mod c_keys;
pub mod containers;
pub mod keyfile;
pub mod launch;
pub mod pbtxt;
pub mod shell;
pub mod yaml;
