//! The pipeline assembled from many files: which file is what (`detect`),
//! loading them (`workspace`), the element graph they describe (`graph`)
//! and the front ends that build it from each format (`frontend`).

pub mod detect;
pub mod facts;
pub mod frontend;
pub mod graph;
pub mod keys;
pub mod memo;
pub mod onnx;
pub mod workspace;
