//! A YAML document as a tree of spanned nodes, for formats whose settings
//! sit deeper than a top-level map's scalars: a Service Maker pipeline's
//! `deepstream: nodes: [{type, name, properties: {…}}]`, the
//! parallel-inference app's fragments. The [`Document`](super::Document)
//! of the same text stays the file's lossless view (positions, syntax
//! errors, edits); the tree only says where each node's bytes are.

use granit_parser::Event;

use super::Entry;
use super::yaml::{self, Events};
use crate::base::Span;

/// Deeper than this, the rest of the document is not read (no
/// DeepStream config nests anywhere near it; a hostile one stays bounded).
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone)]
pub enum Node {
    /// A scalar's value (unquoted) and its bytes (with quotes).
    Scalar(String, Span),
    /// A mapping's key/value pairs, in order, and its bytes.
    Map(Vec<(Node, Node)>, Span),
    Seq(Vec<Node>, Span),
    /// An alias, or what was too deep to read.
    Other(Span),
}

impl Node {
    pub fn span(&self) -> &Span {
        match self {
            Node::Scalar(_, s) | Node::Map(_, s) | Node::Seq(_, s) | Node::Other(s) => s,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar(v, _) => Some(v),
            _ => None,
        }
    }

    /// A map's pairs (nothing for any other node).
    pub fn pairs(&self) -> &[(Node, Node)] {
        match self {
            Node::Map(p, _) => p,
            _ => &[],
        }
    }

    /// A sequence's items (nothing for any other node).
    pub fn items(&self) -> &[Node] {
        match self {
            Node::Seq(i, _) => i,
            _ => &[],
        }
    }

    /// The key node and value of `key` in a map (the last one, as yaml-cpp
    /// keeps a repeated key's last value).
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.pairs()
            .iter()
            .rfind(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// A map's scalar-keyed pair as an [`Entry`]: what a front end makes a
    /// setting of (spans of the key, the value and its lines).
    pub fn to_entry(text: &str, key: &Node, value: &Node) -> Option<Entry> {
        let Node::Scalar(k, ks) = key else { return None };
        let value = match value {
            Node::Scalar(v, s) => yaml::Node::Scalar(v.clone(), s.clone()),
            Node::Map(p, s) => yaml::Node::Complex(s.clone(), p.len()),
            Node::Seq(i, s) => yaml::Node::Complex(s.clone(), i.len()),
            Node::Other(s) => yaml::Node::Complex(s.clone(), 0),
        };
        Some(yaml::make_entry(text, k.clone(), ks.clone(), value))
    }
}

/// The first document's root, or `None` when the text is not YAML the
/// parser accepts (its `Document` carries the error).
pub fn parse(text: &str) -> Option<Node> {
    let masked = yaml::mask_opencv_directive(text);
    let mut events = Events::new(&masked);
    loop {
        let (ev, span) = yaml::next(&mut events).ok()??;
        match ev {
            Event::StreamStart | Event::DocumentStart(..) => continue,
            Event::StreamEnd | Event::DocumentEnd => return None,
            first => return build(&mut events, first, span).ok(),
        }
    }
}

/// One node from its first event; containers are read with an explicit
/// stack, so depth costs no native stack.
fn build(events: &mut Events, first: Event<'static>, span: Span) -> Result<Node, ()> {
    struct Open {
        map: bool,
        start: usize,
        end: usize,
        children: Vec<Node>,
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut ev = first;
    let mut sp = span;
    loop {
        let done = match ev {
            Event::MappingStart(..) | Event::SequenceStart(..) if stack.len() < MAX_DEPTH => {
                stack.push(Open {
                    map: matches!(ev, Event::MappingStart(..)),
                    start: sp.start,
                    end: sp.end,
                    children: Vec::new(),
                });
                None
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                // Too deep: skip the whole subtree.
                let mut depth = 1;
                let mut end = sp.end;
                while depth > 0 {
                    let (e, s) = yaml::next(events).map_err(|_| ())?.ok_or(())?;
                    end = end.max(s.end);
                    match e {
                        Event::MappingStart(..) | Event::SequenceStart(..) => depth += 1,
                        Event::MappingEnd | Event::SequenceEnd => depth -= 1,
                        _ => {}
                    }
                }
                Some(Node::Other(sp.start..end))
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let open = stack.pop().ok_or(())?;
                let end = open.children.iter().map(|c| c.span().end).fold(open.end, usize::max);
                let span = open.start..end.max(open.start);
                Some(if open.map {
                    let mut pairs = Vec::with_capacity(open.children.len() / 2);
                    let mut it = open.children.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        pairs.push((k, v));
                    }
                    Node::Map(pairs, span)
                } else {
                    Node::Seq(open.children, span)
                })
            }
            Event::Scalar(v, ..) => Some(Node::Scalar(v.into_owned(), sp.clone())),
            _ => Some(Node::Other(sp.clone())),
        };
        if let Some(node) = done {
            match stack.last_mut() {
                Some(parent) => parent.children.push(node),
                None => return Ok(node),
            }
        }
        let (e, s) = yaml::next(events).map_err(|_| ())?.ok_or(())?;
        ev = e;
        sp = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_maps_and_sequences_keep_their_spans() {
        let src = "deepstream:\n  nodes:\n  - type: nvstreammux\n    name: m\n    properties:\n      batch-size: 4 # four\n      width: \"1920\"\n  edges:\n    m: [a, b]\n";
        let root = parse(src).unwrap();
        let ds = root.get("deepstream").unwrap();
        let nodes = ds.get("nodes").unwrap().items();
        assert_eq!(nodes.len(), 1);
        assert_eq!(nodes[0].get("type").and_then(Node::as_str), Some("nvstreammux"));
        let props = nodes[0].get("properties").unwrap();
        let (k, v) = props.entry("batch-size").unwrap();
        let e = Node::to_entry(src, k, v).unwrap();
        assert_eq!(&src[e.spans.value()], "4");
        assert_eq!(&src[e.spans.line()], "      batch-size: 4 # four\n");
        assert_eq!(&src[props.get("width").unwrap().span().clone()], "\"1920\"");
        let targets: Vec<&str> = ds
            .get("edges")
            .unwrap()
            .get("m")
            .unwrap()
            .items()
            .iter()
            .filter_map(Node::as_str)
            .collect();
        assert_eq!(targets, ["a", "b"]);
    }

    #[test]
    fn broken_or_deep_documents_stay_bounded() {
        assert!(parse("a: [1, 2\n").is_none());
        let deep = "[".repeat(200) + &"]".repeat(200);
        let root = parse(&deep).unwrap();
        let mut depth = 0;
        let mut n = &root;
        while let Some(first) = n.items().first() {
            n = first;
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH);
        assert!(matches!(n, Node::Other(_)));
    }
}
