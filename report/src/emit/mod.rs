//! The output formats. Each format is one small module with one `render`
//! function from a [`Report`](crate::Report) to the text fib prints; the
//! command line picks the module, and nothing else knows about formats.

pub mod html;
pub mod human;
pub mod json;
mod sources;
