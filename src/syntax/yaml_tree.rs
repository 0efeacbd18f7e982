//! A YAML document as a tree of spanned nodes, for formats whose settings
//! sit deeper than a top-level map's scalars: a Service Maker pipeline's
//! `deepstream: nodes: [{type, name, properties: {…}}]`, the
//! parallel-inference app's fragments. The [`Document`](super::Document)
//! of the same text stays the file's lossless view (positions, syntax
//! errors, edits); the tree only says where each node's bytes are.

use std::borrow::Cow;

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
            Node::Scalar(v, s) => yaml::Node::Scalar(Cow::Borrowed(v), s.clone()),
            Node::Map(p, s) => yaml::Node::Complex(s.clone(), p.len()),
            Node::Seq(i, s) => yaml::Node::Complex(s.clone(), i.len()),
            Node::Other(s) => yaml::Node::Complex(s.clone(), 0),
        };
        Some(yaml::make_entry(text, k, ks.clone(), value))
    }
}

/// The first document's root, or `None` when the text is not YAML the
/// parser accepts (its `Document` carries the error). A YAML [`Document`]
/// already holds the trees of the top-level keys front ends read deeper
/// ([`Document::kept`](super::Document)): this is their second parse's
/// measure in the tests.
pub fn parse(text: &str) -> Option<Node> {
    let masked = yaml::mask_opencv_directive(text);
    let mut events = Events::new(&masked);
    let mut builder = Builder::new(0);
    loop {
        let (ev, span) = yaml::next(&mut events).ok()??;
        match ev {
            Event::StreamStart | Event::DocumentStart(..) if builder.is_empty() => continue,
            Event::StreamEnd | Event::DocumentEnd if builder.is_empty() => return None,
            ev => {
                if let Some(node) = builder.push(&ev, span) {
                    return Some(node);
                }
            }
        }
    }
}

/// A node built from its events, fed one at a time (by [`parse`], or by
/// the document's own parse as it reads a kept key's value); containers
/// are kept on an explicit stack, so depth costs no native stack.
pub(super) struct Builder {
    stack: Vec<Open>,
    /// The node, once its last event is in (`feed`).
    finished: Option<Node>,
    /// How deep the node being built sits in its document (the root is 0).
    depth: usize,
    /// A subtree too deep to keep being passed over: its start, its end so
    /// far and how many containers of it are open.
    skipping: Option<(usize, usize, usize)>,
}

struct Open {
    map: bool,
    start: usize,
    end: usize,
    children: Vec<Node>,
}

impl Builder {
    /// A builder of a node `depth` levels below its document's root.
    pub(super) fn new(depth: usize) -> Builder {
        Builder {
            stack: Vec::new(),
            finished: None,
            depth,
            skipping: None,
        }
    }

    /// Take the node's next event, keeping the node once it is whole
    /// (events after that are not its own: passed over).
    pub(super) fn feed(&mut self, ev: &Event<'_>, sp: Span) {
        if self.finished.is_none() {
            self.finished = self.push(ev, sp);
        }
    }

    /// The node fed, if its last event came in.
    pub(super) fn finished(self) -> Option<Node> {
        self.finished
    }

    fn is_empty(&self) -> bool {
        self.stack.is_empty() && self.skipping.is_none()
    }

    /// Take the node's next event; the node once its last event is in.
    pub(super) fn push(&mut self, ev: &Event<'_>, sp: Span) -> Option<Node> {
        if let Some((start, end, open)) = &mut self.skipping {
            // Too deep: the whole subtree is one `Other`.
            *end = (*end).max(sp.end);
            match ev {
                Event::MappingStart(..) | Event::SequenceStart(..) => *open += 1,
                Event::MappingEnd | Event::SequenceEnd => *open -= 1,
                _ => {}
            }
            if *open > 0 {
                return None;
            }
            let node = Node::Other(*start..*end);
            self.skipping = None;
            return self.done(node);
        }
        let node = match ev {
            Event::MappingStart(..) | Event::SequenceStart(..) if self.depth + self.stack.len() < MAX_DEPTH => {
                self.stack.push(Open {
                    map: matches!(ev, Event::MappingStart(..)),
                    start: sp.start,
                    end: sp.end,
                    children: Vec::new(),
                });
                return None;
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                self.skipping = Some((sp.start, sp.end, 1));
                return None;
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let open = self.stack.pop()?;
                let end = open.children.iter().map(|c| c.span().end).fold(open.end, usize::max);
                let span = open.start..end.max(open.start);
                if open.map {
                    let mut pairs = Vec::with_capacity(open.children.len() / 2);
                    let mut it = open.children.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        pairs.push((k, v));
                    }
                    Node::Map(pairs, span)
                } else {
                    Node::Seq(open.children, span)
                }
            }
            Event::Scalar(v, ..) => Node::Scalar(v.to_string(), sp),
            _ => Node::Other(sp),
        };
        self.done(node)
    }

    /// A finished node: its parent's next child, or the result.
    fn done(&mut self, node: Node) -> Option<Node> {
        match self.stack.last_mut() {
            Some(parent) => {
                parent.children.push(node);
                None
            }
            None => Some(node),
        }
    }
}

/// The values of a document's kept top-level keys (`yaml::KEPT_KEYS`), in
/// file order, as the document's own parse read them: what a front end
/// that reads deeper than a group's entries asks for, without a second
/// parse of the text.
#[derive(Debug, Default)]
pub struct Kept(pub(super) Vec<(String, Node)>);

impl Kept {
    /// The value of top-level key `key`: the last one, as [`Node::get`]
    /// on the document's root finds it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.0.iter().rfind(|(k, _)| k == key).map(|(_, v)| v)
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
        assert_eq!(&src[e.value_span()], "4");
        assert_eq!(&src[e.line_span()], "      batch-size: 4 # four\n");
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
