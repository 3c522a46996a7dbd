//! Renderers: text for people, JSON for programs. They read models; they never decide.

pub mod bays_svg;
pub mod bays_text;
pub mod diag;
pub mod dot;
pub mod escape;
pub mod flow;
pub mod json;
pub mod term;
pub mod text;
