//! `dslint nsys`: Nsight Systems captures of a GPU inference service from its
//! own launch script — wrap the launch command, inject profiler start/stop
//! into FastDeploy's model runner, and drive a capture end to end. Files are
//! edited surgically, shown as diffs, and never lost (`.bak`).

pub mod capture;
pub mod http;
pub mod inject;
pub mod shell;
pub mod wrap;
