//! dslint: a linter and fixer for NVIDIA DeepStream pipeline configuration.
pub mod syntax;
