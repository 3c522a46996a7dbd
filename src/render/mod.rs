//! Renderers: text for people, JSON for programs. They read models; they never decide.

pub mod bays_svg;
pub mod bays_text;
pub mod diag;
pub mod dot;
pub mod flow;
pub mod host;
pub mod json;
pub mod text;
pub mod textfit;

/// The escaper and the terminal description are leaf modules (anything may use them, they
/// use nothing of the crate); re-exported here, where the renderers reach for them.
pub use crate::{escape, term};
