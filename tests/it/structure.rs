//! The code's shape, held by tests (issue 19): no function in `src/` of 150 lines or more,
//! and no loop among the library's top-level modules (each module imports only from modules
//! below it, so the data of a command never climbs back up). Both read the sources with
//! `syn`, so strings, comments and macros cannot fool them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The longest a function may be, in lines from `fn` to its closing brace.
const MAX_FN_LINES: usize = 150;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn src_files() -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    (root, files)
}

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).expect("source is UTF-8");
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every function (free, method, trait default) with its first line and length in lines.
#[derive(Default)]
struct Fns {
    found: Vec<(String, usize, usize)>,
}

impl Fns {
    fn add(&mut self, name: String, span: proc_macro2::Span) {
        let (a, b) = (span.start().line, span.end().line);
        self.found.push((name, a, b - a + 1));
    }
}

impl<'a> Visit<'a> for Fns {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.add(f.sig.ident.to_string(), f.span());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.add(f.sig.ident.to_string(), f.span());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        if f.default.is_some() {
            self.add(f.sig.ident.to_string(), f.span());
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

#[test]
fn no_function_is_150_lines_or_longer() {
    let (root, files) = src_files();
    let mut all = 0;
    let mut long = Vec::new();
    for p in &files {
        let mut v = Fns::default();
        v.visit_file(&parse(p));
        all += v.found.len();
        for (name, line, len) in v.found {
            if len >= MAX_FN_LINES {
                let rel = p.strip_prefix(&root).unwrap_or(p).display().to_string();
                long.push(format!("src/{rel}:{line} {name}: {len} lines"));
            }
        }
    }
    // The sources hold well over a thousand functions: a walk that found few found nothing.
    assert!(all > 1000, "only {all} functions found in src/");
    assert!(
        long.is_empty(),
        "{} of {all} functions are {MAX_FN_LINES} lines or longer:\n{}",
        long.len(),
        long.join("\n")
    );
}

/// The top-level modules a file names by `crate::x` paths, outside `#[cfg(test)]` items.
#[derive(Default)]
struct Uses {
    to: BTreeSet<String>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Path>()
                .is_ok_and(|p| p.is_ident("test"))
    })
}

impl<'a> Visit<'a> for Uses {
    fn visit_item(&mut self, i: &'a syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => return syn::visit::visit_item(self, i),
        };
        if !is_cfg_test(attrs) {
            syn::visit::visit_item(self, i);
        }
    }
    fn visit_path(&mut self, p: &'a syn::Path) {
        let mut segs = p.segments.iter();
        if let (Some(a), Some(b)) = (segs.next(), segs.next())
            && a.ident == "crate"
        {
            self.to.insert(b.ident.to_string());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        if let syn::UseTree::Path(p) = &u.tree
            && p.ident == "crate"
        {
            let mut heads = Vec::new();
            use_heads(&p.tree, &mut heads);
            self.to.extend(heads);
        }
    }
}

/// The first segment of each path in a `use crate::{..}` tree.
fn use_heads(t: &syn::UseTree, out: &mut Vec<String>) {
    match t {
        syn::UseTree::Path(p) => out.push(p.ident.to_string()),
        syn::UseTree::Name(n) => out.push(n.ident.to_string()),
        syn::UseTree::Rename(r) => out.push(r.ident.to_string()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|i| use_heads(i, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// Module import graph: top-level module -> the top-level modules it imports.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let (root, files) = src_files();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &files {
        let rel = p.strip_prefix(&root).expect("under src");
        let first = rel.components().next().expect("a file");
        let top = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        // The binary (main.rs, cmd/) reaches the library as `laneplan::`; lib.rs only
        // declares the modules.
        if matches!(top.as_str(), "main" | "lib" | "cmd") {
            continue;
        }
        let mut v = Uses::default();
        v.visit_file(&parse(p));
        let e = g.entry(top.clone()).or_default();
        e.extend(v.to.into_iter().filter(|m| *m != top));
    }
    g
}

/// A cycle of modules, if any (depth-first search, colours).
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn dfs(
        v: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        stack.push(v.to_string());
        for w in g.get(v).into_iter().flatten() {
            match state.get(w.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|x| x == w).unwrap_or(0);
                    let mut c = stack[at..].to_vec();
                    c.push(w.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = dfs(w, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in g.keys() {
        if state.get(v.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = dfs(v, g, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_library_modules_import_without_a_loop() {
    let g = import_graph();
    let edges: usize = g.values().map(BTreeSet::len).sum();
    // Non-vacuous: the walk sees the modules and their imports (the layers above `finding`
    // and `topology` all import them).
    assert!(
        g.len() > 20 && edges > 50,
        "{} modules, {edges} imports",
        g.len()
    );
    assert!(g["render"].contains("topology"), "render imports topology");
    if let Some(c) = find_cycle(&g) {
        panic!("module loop: {}", c.join(" -> "));
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_loop() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut edge = |a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
    };
    edge("host", "topology");
    edge("against", "host");
    edge("host", "against");
    assert_eq!(
        find_cycle(&g),
        Some(vec!["against".into(), "host".into(), "against".into()])
    );
    g.get_mut("host").unwrap().remove("against");
    assert_eq!(find_cycle(&g), None);
}
