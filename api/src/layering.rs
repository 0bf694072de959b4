//! The api crate's layering, checked on its own source: the crate's top-level modules
//! import each other without a circle (the HTTP edge is built upward — the problem
//! response, the caller's identity, the state, then the gate and the outer layer — and
//! nothing below reaches back up), and so do the children of `routes`,
//! `routes::admin` and `openai` (a resource's routes never import each other both
//! ways: what two of them share is a module of its own).
//!
//! Imports are read as `crate::a…`, `use crate::{a…, b…}` and `super::a…` paths outside
//! comments and `#[cfg(test)] mod tests`; a module's own tests may reach anywhere. The
//! reader is a copy of `parley-worker`'s (`worker/src/layering.rs`), adapted: sharing it
//! would take a crate of its own for forty lines of string scanning.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

/// Each module of the crate (`turn::claim`; the root is ``) with its source, tests cut.
fn modules() -> BTreeMap<String, String> {
    #[allow(
        clippy::disallowed_methods,
        reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
    )]
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("the crate's source")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let mut module = prefix.to_vec();
            if path.is_dir() {
                module.push(name.to_owned());
                walk(&path, &module, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || name == "tests" {
                continue;
            }
            if !matches!(name, "mod" | "lib") {
                module.push(name.to_owned());
            }
            let source = std::fs::read_to_string(&path).expect("a source file");
            out.insert(module.join("::"), without_tests_and_comments(&source));
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut out,
    );
    out
}

fn without_tests_and_comments(source: &str) -> String {
    let code = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segments of the paths `source` imports after `prefix` (`crate::`,
/// `super::`), with the members of a `prefix{…}` group.
fn imported(source: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in source.match_indices(prefix) {
        let before = source[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &source[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut member = String::new();
            let mut start = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        if !member.is_empty() {
                            found.insert(std::mem::take(&mut member));
                        }
                        start = true;
                    }
                    c if start && (c.is_alphanumeric() || c == '_') => member.push(c),
                    _ if start && !member.is_empty() => {
                        found.insert(std::mem::take(&mut member));
                        start = false;
                    }
                    _ => {}
                }
            }
            if !member.is_empty() {
                found.insert(member);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

/// The edges among the children of `parent` (`""`: the crate's top-level modules): a
/// child imports another child when any module inside it does.
fn edges_among_children(
    modules: &BTreeMap<String, String>,
    parent: &str,
) -> BTreeMap<String, BTreeSet<String>> {
    let depth = if parent.is_empty() {
        0
    } else {
        parent.split("::").count()
    };
    let child_of = |module: &str| -> Option<String> {
        let parts: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
        let inside = parent.is_empty() || module.starts_with(&format!("{parent}::"));
        (inside && parts.len() > depth).then(|| parts[depth].to_owned())
    };
    let children: BTreeSet<String> = modules.keys().filter_map(|m| child_of(m)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, source) in modules {
        let Some(from) = child_of(module) else {
            continue;
        };
        let mut targets = BTreeSet::new();
        if parent.is_empty() {
            targets.extend(imported(source, "crate::"));
        } else {
            if module.split("::").count() == depth + 1 {
                targets.extend(imported(source, "super::"));
            }
            let absolute = format!("crate::{parent}::");
            targets.extend(imported(source, &absolute));
        }
        for to in targets {
            if to != from && children.contains(&to) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// A circle in `edges`, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// The circle among the children of `parent`, reported with the edges it was found in.
fn assert_no_circle(parent: &str, at_least: usize) {
    let modules = modules();
    let edges = edges_among_children(&modules, parent);
    assert!(
        edges.len() >= at_least,
        "the imports among the children of `{parent}` are read: {edges:#?}"
    );
    if let Some(found) = circle(&edges) {
        panic!(
            "the children of `{parent}` import each other in a circle: {}\n{edges:#?}",
            found.join(" -> ")
        );
    }
}

#[test]
fn the_top_level_modules_import_each_other_without_a_circle() {
    assert_no_circle("", 10);
}

#[test]
fn the_routes_import_each_other_without_a_circle() {
    assert_no_circle("routes", 5);
}

#[test]
fn the_admin_routes_import_each_other_without_a_circle() {
    assert_no_circle("routes::admin", 5);
}

#[test]
fn the_openai_surface_imports_itself_without_a_circle() {
    assert_no_circle("openai", 3);
}

#[test]
fn the_reader_finds_a_circle() {
    // The checks above can fail: a circle is found, through a group and a path.
    let mut modules = BTreeMap::new();
    modules.insert("a".to_owned(), "use crate::{b::X, c};".to_owned());
    modules.insert("b".to_owned(), "fn f() { crate::a::g() }".to_owned());
    modules.insert("c".to_owned(), String::new());
    let edges = edges_among_children(&modules, "");
    assert_eq!(
        circle(&edges),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    // Below a parent, `super::` names a sibling.
    let mut modules = BTreeMap::new();
    modules.insert("routes::a".to_owned(), "use super::b::Reply;".to_owned());
    modules.insert(
        "routes::b".to_owned(),
        "use crate::routes::a::X;".to_owned(),
    );
    let edges = edges_among_children(&modules, "routes");
    assert_eq!(
        circle(&edges),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    // A comment does not import.
    assert_eq!(
        without_tests_and_comments("//! see crate::a\nuse x;"),
        "use x;"
    );
}
