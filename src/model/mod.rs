//! The pipeline assembled from many files: which file is what, which file
//! references which, and the effective value of each property.

pub mod detect;
pub mod facts;
pub mod keys;
pub mod pipeline;
pub mod workspace;
