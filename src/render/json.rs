//! JSON output. Every document carries `schema_version`; `docs/JSON.md` documents the
//! fields. Bump the version when a field changes meaning or disappears (additions keep it).

use crate::finding::Finding;
use crate::plan::Report;
use crate::plan::budget::Budget;
use crate::platform::Catalog;
use crate::topology::{Link, Node, Topology};
use serde::Serialize;
use serde_json::{Value, json};

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonNode<'a> {
    #[serde(flatten)]
    node: &'a Node,
    /// Parent node id (absent for roots).
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    /// The link from the parent.
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<&'a Link>,
}

/// The topology as a flat node list in depth-first order (stable).
pub fn topology(t: &Topology) -> Value {
    let nodes: Vec<JsonNode> = t
        .depth_first()
        .into_iter()
        .map(|ix| {
            let up = t.parent_edge(ix);
            JsonNode {
                node: t.node(ix),
                parent: up.map(|(p, _)| t.node(p).id.as_str()),
                link: up.map(|(_, e)| &t.graph[e]),
            }
        })
        .collect();
    let fabric: Vec<Value> = t
        .fabric_links()
        .into_iter()
        .map(|(a, b, l)| json!({"between": [t.node(a).id, t.node(b).id], "link": l}))
        .collect();
    json!({ "name": t.name, "nodes": nodes, "fabric": fabric })
}

pub fn platforms(catalog: &Catalog) -> Value {
    let list: Vec<Value> = catalog
        .platforms
        .values()
        .map(|p| {
            let d = &p.def;
            json!({
                "id": d.id.get_ref(),
                "name": d.name,
                "form": d.form,
                "sockets": d.sockets.len(),
                "lanes": d.sockets.iter().map(|s| u32::from(*s.lanes.get_ref())).sum::<u32>(),
                "options": d.options.iter().map(|o| json!({
                    "key": o.key.get_ref(),
                    "label": o.label,
                    "default": o.default.get_ref(),
                    "choices": o.choices.iter().map(|c| json!({
                        "value": c.value.get_ref(), "label": c.label
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "schema_version": SCHEMA_VERSION, "platforms": list })
}

pub fn budget(b: &Budget) -> Value {
    serde_json::to_value(b).unwrap_or(Value::Null)
}

pub fn findings(f: &[Finding]) -> Value {
    serde_json::to_value(f).unwrap_or(Value::Null)
}

/// What every plan document starts with: the plan's identity and the given findings.
fn plan_header(r: &Report, found: &[Finding]) -> serde_json::Map<String, Value> {
    [
        ("schema_version", json!(SCHEMA_VERSION)),
        ("platform", json!(r.plan.platform_id)),
        ("platform_name", json!(r.plan.platform_name)),
        ("build", json!(r.plan.build_name)),
        ("file", json!(r.file)),
        ("options", json!(r.plan.options)),
        ("findings", findings(found)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// `show` and `check` share one document shape.
pub fn report(r: &Report, extra: Option<(&str, Value)>) -> Value {
    let mut v = plan_header(r, &r.findings);
    v.insert("budget".into(), budget(&r.budget));
    v.insert("topology".into(), topology(&r.plan.topology));
    if let Some((k, x)) = extra {
        v.insert(k.to_string(), x);
    }
    Value::Object(v)
}

/// The `bandwidth` object (docs/JSON.md, section "bandwidth").
pub fn bandwidth(f: &crate::flow::FlowReport) -> Value {
    serde_json::to_value(f).unwrap_or(Value::Null)
}

/// The `system` object (docs/JSON.md, section "system"): the end-to-end bounds.
pub fn system(s: &crate::flow::system::SystemReport) -> Value {
    serde_json::to_value(s).unwrap_or(Value::Null)
}

/// `laneplan flow --json`: the plan's identity, the bandwidth object and its findings.
pub fn flow_document(r: &Report, f: &crate::flow::FlowReport, found: &[Finding]) -> Value {
    let mut v = plan_header(r, found);
    v.insert("bandwidth".into(), bandwidth(f));
    Value::Object(v)
}

/// The parts catalogue (`laneplan parts --json`).
pub fn parts(catalog: &Catalog, class: Option<crate::topology::DeviceClass>) -> Value {
    let list: Vec<Value> = catalog
        .parts
        .values()
        .filter(|p| class.is_none_or(|c| c == p.def.class))
        .map(|p| {
            let d = &p.def;
            json!({
                "id": d.id.get_ref(),
                "name": d.name,
                "class": d.class,
                "interface": d.interface,
                "gen": d.generation.get_ref(),
                "width": d.width.get_ref(),
                "perf": d.perf,
                "confidence": d.confidence,
                "source": d.source,
            })
        })
        .collect();
    json!({ "schema_version": SCHEMA_VERSION, "parts": list })
}
