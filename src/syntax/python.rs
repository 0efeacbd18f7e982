//! Python modules, read with tree-sitter-python (a maintained grammar with a
//! byte span on every node; a module with a syntax error still parses
//! around it). This module evaluates what a front end needs from the tree
//! without running anything: string expressions as the text they make
//! (mapped to the file, with placeholders for what they interpolate) and
//! literals.

use std::collections::HashMap;

use rayon::prelude::*;
use tree_sitter::{Node, Parser, Range, Tree, TreeCursor};

use crate::syntax::SyntaxError;
use crate::syntax::launch::Mapped;
use crate::syntax::points::points;
use crate::syntax::python_cuts::{self, Cut};
use crate::syntax::python_plain::{self, Plain};

/// A module is parsed only when its indentation is within CPython's own
/// limit (`MAXINDENT` in CPython's tokenizer: "too many levels of
/// indentation"): tree-sitter-python's scanner keeps the indentation stack
/// in a fixed buffer and aborts the process past ~500 levels.
pub fn parse_tree(text: &str) -> Option<Tree> {
    if too_deep(text).is_some() {
        return None;
    }
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    parser.parse(text, None)
}

/// Node kinds as tree-sitter-python's numbers, for the walks over every
/// node: `Node::kind` makes a `&str` of the grammar's C string each call
/// (a length scan and a UTF-8 check). `Node::kind_id` is the same symbol
/// `Language::id_for_node_kind` gives for the name (both are the grammar's
/// public symbol), so comparing ids is comparing names.
pub struct Kinds {
    pub module: u16,
    pub block: u16,
    pub identifier: u16,
    pub call: u16,
    pub function_definition: u16,
    pub parameters: u16,
    pub default_parameter: u16,
    pub typed_parameter: u16,
    pub assignment: u16,
    pub augmented_assignment: u16,
    pub for_statement: u16,
    /// `(x := …)`: binds its `name` in the scope it is in.
    pub named_expression: u16,
    /// `global x` and `nonlocal x`: names a function binds for another
    /// scope.
    pub rebinding: [u16; 2],
    /// The kinds with a `left` field (tree-sitter-python's
    /// node-types.json): asking any other kind for it finds nothing.
    pub with_left: [u16; 7],
    pub expression_statement: u16,
    pub attribute: u16,
    pub decorated_definition: u16,
    /// The kinds a string expression's evaluation (`string`) and an
    /// integer's (`int`) look at.
    pub string: u16,
    pub concatenated_string: u16,
    pub parenthesized_expression: u16,
    pub binary_operator: u16,
    pub unary_operator: u16,
    pub integer: u16,
    pub string_start: u16,
    pub string_end: u16,
    pub string_content: u16,
    pub interpolation: u16,
    pub escape_interpolation: u16,
    pub escape_sequence: u16,
    /// Field ids (`Node::child_by_field_id`): `child_by_field_name` looks
    /// the name up among the grammar's field names on each call.
    pub fields: Fields,
}

/// tree-sitter-python's field ids for the names.
pub struct Fields {
    pub left: u16,
    pub right: u16,
    pub name: u16,
    pub parameters: u16,
    pub function: u16,
    pub arguments: u16,
    pub object: u16,
    pub attribute: u16,
    pub operator: u16,
    pub argument: u16,
    pub body: u16,
    pub definition: u16,
}

/// The kinds' numbers (see `Kinds`).
pub fn kinds() -> &'static Kinds {
    static KINDS: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let id = |name: &str| language.id_for_node_kind(name, true);
        let field = |name: &str| language.field_id_for_name(name).map_or(0, |f| f.get());
        Kinds {
            module: id("module"),
            block: id("block"),
            identifier: id("identifier"),
            call: id("call"),
            function_definition: id("function_definition"),
            parameters: id("parameters"),
            default_parameter: id("default_parameter"),
            typed_parameter: id("typed_parameter"),
            assignment: id("assignment"),
            augmented_assignment: id("augmented_assignment"),
            for_statement: id("for_statement"),
            named_expression: id("named_expression"),
            rebinding: [id("global_statement"), id("nonlocal_statement")],
            with_left: [
                id("assignment"),
                id("augmented_assignment"),
                id("binary_operator"),
                id("boolean_operator"),
                id("for_in_clause"),
                id("for_statement"),
                id("type_alias_statement"),
            ],
            expression_statement: id("expression_statement"),
            attribute: id("attribute"),
            decorated_definition: id("decorated_definition"),
            string: id("string"),
            concatenated_string: id("concatenated_string"),
            parenthesized_expression: id("parenthesized_expression"),
            binary_operator: id("binary_operator"),
            unary_operator: id("unary_operator"),
            integer: id("integer"),
            string_start: id("string_start"),
            string_end: id("string_end"),
            string_content: id("string_content"),
            interpolation: id("interpolation"),
            escape_interpolation: id("escape_interpolation"),
            escape_sequence: id("escape_sequence"),
            fields: Fields {
                left: field("left"),
                right: field("right"),
                name: field("name"),
                parameters: field("parameters"),
                function: field("function"),
                arguments: field("arguments"),
                object: field("object"),
                attribute: field("attribute"),
                operator: field("operator"),
                argument: field("argument"),
                body: field("body"),
                definition: field("definition"),
            },
        }
    })
}

/// A module's syntax trees: the whole module's, or those of its pieces
/// (see `parse`), each with the cut it starts at (the first at 0).
pub struct Parsed {
    trees: Vec<Piece>,
}

struct Piece {
    cut: Cut,
    /// Where its first statement starts (past the line's indentation).
    first: usize,
    /// `None`: every statement of the piece is a plain line.
    tree: Option<Tree>,
    /// Where the first statement of each run of the tree's lines starts
    /// (past the indentation; see `plain_lines`).
    runs: Vec<usize>,
    /// Its plain lines (`python_plain`), read without the tree, in order.
    plains: Vec<Plain>,
}

/// A statement of a module's view: a node of a piece's tree, or a plain
/// line read without tree-sitter (`python_plain`; only ever among the
/// statements a top-level `def`'s body goes on with in later pieces).
#[derive(Debug, Clone, Copy)]
pub enum Item<'t> {
    Node(Node<'t>),
    Plain(&'t Plain),
}

impl<'t> Item<'t> {
    pub fn start(&self) -> usize {
        match self {
            Item::Node(n) => n.start_byte(),
            Item::Plain(p) => p.span.start,
        }
    }

    pub fn end(&self) -> usize {
        match self {
            Item::Node(n) => n.end_byte(),
            Item::Plain(p) => p.span.end,
        }
    }
}

/// A module longer than this is parsed in pieces of about this size, on
/// all threads (tree-sitter-python parses a few MB/s on one core).
const PIECE: usize = 256 * 1024;

/// A module's trees, `None` when it is not read (see `parse_tree`). A
/// module longer than `PIECE` is cut at its statements (`python_cuts`) and
/// its pieces parsed on all threads; when a piece has a syntax error the
/// whole module is parsed, as before (and when a piece does not start as
/// its cut says: see `Parsed::view`).
pub fn parse(text: &str) -> Option<Parsed> {
    parse_by(text, PIECE)
}

/// `parse` with pieces of about `piece` bytes.
pub fn parse_by(text: &str, piece: usize) -> Option<Parsed> {
    if too_deep(text).is_some() {
        return None;
    }
    if text.len() > piece {
        if let Some(p) = parse_pieces(text, piece) {
            return Some(p);
        }
    }
    let tree = parse_tree(text)?;
    Some(Parsed {
        trees: vec![Piece {
            cut: Cut { at: 0, header: None },
            first: 0,
            tree: Some(tree),
            runs: Vec::new(),
            plains: Vec::new(),
        }],
    })
}

fn parse_pieces(text: &str, piece: usize) -> Option<Parsed> {
    let cuts = python_cuts::cuts(text);
    let pieces = pieces(text, cuts.clone(), piece);
    if pieces.len() < 2 {
        return None;
    }
    let mut at: Vec<usize> = pieces
        .iter()
        .flat_map(|(cut, end)| {
            [cut.at, *end]
                .into_iter()
                .chain(cut.header.iter().flat_map(|h| [h.start, h.end]))
        })
        .collect();
    at.sort_unstable();
    at.dedup();
    let points = points(text, &at);
    let range = |start: usize, end: usize| Range {
        start_byte: start,
        end_byte: end,
        start_point: points[&start],
        end_point: points[&end],
    };
    let trees: Option<Vec<Piece>> = pieces
        .into_par_iter()
        .map(|(cut, end)| {
            let mut ranges = Vec::new();
            if let Some(h) = &cut.header {
                ranges.push(range(h.start, h.end));
            }
            // The piece's bytes but its plain lines, in runs of whole lines.
            let rows = || Rows {
                b: text.as_bytes(),
                counted: cut.at,
                point: points[&cut.at],
            };
            let (runs, plains) = match &cut.header {
                Some(h) => plain_lines(text, &cuts, &cut, end, h, rows()),
                None => (std::iter::once(cut.at..end).collect(), Vec::new()),
            };
            let mut rows = rows();
            for r in &runs {
                let (start_point, end_point) = (rows.at(r.start), rows.at(r.end));
                ranges.push(Range {
                    start_byte: r.start,
                    end_byte: r.end,
                    start_point,
                    end_point,
                });
            }
            let indented = |at: usize| at + text[at..].bytes().take_while(|b| matches!(b, b' ' | b'\t')).count();
            let tree = if runs.is_empty() {
                None
            } else {
                let mut parser = Parser::new();
                parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
                parser.set_included_ranges(&ranges).ok()?;
                let tree = parser.parse(text, None)?;
                if tree.root_node().has_error() {
                    return None;
                }
                Some(tree)
            };
            Some(Piece {
                first: indented(cut.at),
                runs: runs.iter().map(|r| indented(r.start)).collect(),
                cut,
                tree,
                plains,
            })
        })
        .collect();
    Some(Parsed { trees: trees? })
}

/// Rows and columns of the offsets of a piece, in order (`points` from a
/// known point on).
struct Rows<'b> {
    b: &'b [u8],
    counted: usize,
    point: tree_sitter::Point,
}

impl Rows<'_> {
    fn at(&mut self, a: usize) -> tree_sitter::Point {
        for &c in &self.b[self.counted..a] {
            if c == b'\n' {
                self.point.row += 1;
                self.point.column = 0;
            } else {
                self.point.column += 1;
            }
        }
        self.counted = a;
        self.point
    }
}

/// The plain lines (`python_plain`) of a piece that continues the body of
/// the top-level `def` whose header is `header`, and the piece's other
/// bytes in runs of whole lines, each starting at a cut. A line is plain
/// where a cut of this body starts it and a cut (or the module's end)
/// starts the next line: no bracket, string or continuation crosses it,
/// it is indented as the body, and nothing after it continues it. The
/// last piece keeps the plain lines it ends with in its tree, so that its
/// module node ends where the whole module's does.
fn plain_lines(
    text: &str,
    cuts: &[Cut],
    cut: &Cut,
    end: usize,
    header: &std::ops::Range<usize>,
    mut rows: Rows,
) -> (Vec<std::ops::Range<usize>>, Vec<python_plain::Plain>) {
    let (mut runs, mut plains) = (Vec::new(), Vec::new());
    let mut run = cut.at;
    let from = cuts.partition_point(|c| c.at < cut.at);
    let to = cuts.partition_point(|c| c.at < end);
    for (k, c) in cuts.iter().enumerate().take(to).skip(from) {
        if c.header.as_ref() != Some(header) {
            continue;
        }
        let next = cuts.get(k + 1).map_or(text.len(), |n| n.at);
        let row = rows.at(c.at).row;
        let Some((plain, after)) = python_plain::read(text, c.at, row).filter(|(_, after)| *after == next) else {
            continue;
        };
        if run < c.at {
            runs.push(run..c.at);
        }
        plains.push(plain);
        run = after;
    }
    if run < end {
        runs.push(run..end);
    } else if end == text.len() && !plains.is_empty() {
        // Give the lines after the last run back to the tree.
        let last = runs.last().map_or(cut.at, |r| r.end);
        let keep = plains.partition_point(|p| p.line < last);
        let start = plains[keep].line;
        plains.truncate(keep);
        runs.push(start..end);
    }
    (runs, plains)
}

/// The module's cuts joined into pieces of at least `piece` bytes (the
/// last may be shorter): each piece's first cut and its end.
fn pieces(text: &str, cuts: Vec<Cut>, piece: usize) -> Vec<(Cut, usize)> {
    let mut out = Vec::new();
    let mut start = Cut { at: 0, header: None };
    for cut in cuts {
        if cut.at - start.at >= piece {
            let end = cut.at;
            out.push((std::mem::replace(&mut start, cut), end));
        }
    }
    out.push((start, text.len()));
    out
}

/// The module's syntax as one tree: the first piece's, where the module
/// node and each top-level `def`'s body go on with the statements that
/// later pieces hold (`children`). What the walks of this view visit, and
/// in what order, is what they visit in the whole module's tree: each
/// piece's statements are the whole's (`python_cuts` says why), and no
/// statement of a later piece is anywhere else in the view (a piece that
/// continues a body starts with a copy of its `def`'s header, which is
/// left out).
pub struct View<'t> {
    root: Node<'t>,
    /// The statements a node goes on with in later pieces, by node id
    /// (the module node, and the body of a top-level `def` that a later
    /// piece continues), each with its node.
    more: HashMap<usize, (Node<'t>, Vec<Item<'t>>)>,
    end: usize,
}

impl Parsed {
    /// Free the trees on all threads, in the background (freeing an 8 MiB
    /// module's trees took a few percent of its check): the caller goes on
    /// with the module's pipelines and their rules meanwhile.
    pub fn free(self) {
        rayon::spawn(move || self.trees.into_par_iter().for_each(drop));
    }

    /// How many pieces the module was parsed in.
    pub fn pieces(&self) -> usize {
        self.trees.len()
    }

    /// How many of its lines were read as plain lines (`python_plain`).
    pub fn plain_lines(&self) -> usize {
        self.trees.iter().map(|p| p.plains.len()).sum()
    }

    /// The module as one tree. `None` when a piece does not start where its
    /// cut says: the reader then parses the whole module. Each piece's
    /// statements are read on all threads (`Piece::read`), then joined in
    /// order here.
    pub fn view(&self) -> Option<View<'_>> {
        let root = self.trees.first()?.tree.as_ref()?.root_node();
        let mut view = View {
            root,
            more: HashMap::new(),
            end: root.end_byte(),
        };
        let read: Vec<Option<Read<'_>>> = if self.trees.len() == 1 {
            vec![self.trees[0].read(false)]
        } else {
            self.trees
                .par_iter()
                .enumerate()
                .map(|(k, piece)| piece.read(k > 0))
                .collect()
        };
        // The body of each top-level `def` read so far, by the def's start.
        let mut bodies: HashMap<usize, Node> = HashMap::new();
        for (k, read) in read.into_iter().enumerate() {
            let Read {
                top,
                continued,
                defs,
                end,
            } = read?;
            if let Some((header, stmts)) = continued {
                let home = *bodies.get(&header)?;
                view.more.entry(home.id()).or_insert((home, Vec::new())).1.extend(stmts);
            }
            if k > 0 {
                view.more
                    .entry(root.id())
                    .or_insert((root, Vec::new()))
                    .1
                    .extend(top.iter().copied().map(Item::Node));
            }
            bodies.extend(defs);
            view.end = view.end.max(end);
        }
        Some(view)
    }
}

/// What a piece's tree holds for the view (see `Parsed::view`).
struct Read<'t> {
    /// Its top-level statements (without the copy of a header).
    top: Vec<Node<'t>>,
    /// The start of the `def` whose body it continues, and the body's
    /// statements in this piece.
    continued: Option<(usize, Vec<Item<'t>>)>,
    /// The body of each top-level `def` among `top`, by the def's start.
    defs: Vec<(usize, Node<'t>)>,
    end: usize,
}

impl Piece {
    /// The piece's statements; `None` when it does not start where its cut
    /// says. `later`: not the first piece.
    fn read(&self, later: bool) -> Option<Read<'_>> {
        let Piece {
            cut,
            first,
            tree,
            runs,
            plains,
        } = self;
        let k = kinds();
        let (mut top, mut end) = (Vec::new(), cut.at);
        let mut c = None;
        if let Some(tree) = tree {
            let piece = tree.root_node();
            let c = c.insert(piece.walk());
            top = piece.named_children(c).collect();
            end = piece.end_byte();
        }
        let mut continued = None;
        if later {
            if let Some(h) = &cut.header {
                // A copy of the header, then the body's next statements.
                let mut stmts = Vec::new();
                if let Some(c) = &mut c {
                    let def = top
                        .first()
                        .filter(|d| d.kind_id() == k.function_definition && d.start_byte() == h.start)?;
                    let body = def.child_by_field_id(k.fields.body)?;
                    stmts = body.named_children(c).filter(|s| s.start_byte() >= cut.at).collect();
                    top.remove(0);
                }
                // Each run of the tree's lines starts a statement of the
                // body or of the top level after it.
                let mut starts = stmts.iter().chain(&top).map(|n| n.start_byte()).peekable();
                for r in runs {
                    while starts.next_if(|s| s < r).is_some() {}
                    starts.next_if_eq(r)?;
                }
                let items = merge(stmts, plains);
                if items.first()?.start() != *first {
                    return None;
                }
                continued = Some((h.start, items));
            } else if top.first()?.start_byte() != *first {
                return None;
            }
        }
        let mut defs = Vec::new();
        for n in &top {
            let def = if n.kind_id() == k.decorated_definition {
                n.child_by_field_id(k.fields.definition)
            } else {
                Some(*n)
            };
            if let Some(d) = def.filter(|d| d.kind_id() == k.function_definition) {
                if let Some(body) = d.child_by_field_id(k.fields.body) {
                    defs.push((d.start_byte(), body));
                }
            }
        }
        Some(Read {
            top,
            continued,
            defs,
            end,
        })
    }
}

/// A body's statements from a piece's tree and its plain lines, in order.
fn merge<'t>(nodes: Vec<Node<'t>>, plains: &'t [Plain]) -> Vec<Item<'t>> {
    let mut out = Vec::with_capacity(nodes.len() + plains.len());
    let mut plains = plains.iter().peekable();
    for n in nodes {
        while let Some(p) = plains.next_if(|p| p.span.start < n.start_byte()) {
            out.push(Item::Plain(p));
        }
        out.push(Item::Node(n));
    }
    out.extend(plains.map(Item::Plain));
    out
}

impl<'t> View<'t> {
    /// The module node (of the first piece).
    pub fn root(&self) -> Node<'t> {
        self.root
    }

    /// A node's named children, and the statements it goes on with in
    /// later pieces.
    pub fn children<'a>(&'a self, n: Node<'t>, c: &'a mut TreeCursor<'t>) -> impl Iterator<Item = Item<'t>> + 'a {
        let more = self.more(n);
        self.own_children(n, c).map(Item::Node).chain(more.iter().copied())
    }

    /// The statements a node goes on with in later pieces (empty for most).
    pub fn more(&self, n: Node<'t>) -> &[Item<'t>] {
        let k = kinds();
        if self.more.is_empty() || !(n.kind_id() == k.module || n.kind_id() == k.block) {
            return &[];
        }
        self.more.get(&n.id()).map_or(&[], |(_, m)| m.as_slice())
    }

    /// Every node that goes on with statements of later pieces, with them.
    pub fn continued(&self) -> impl Iterator<Item = (Node<'t>, &[Item<'t>])> + '_ {
        self.more.values().map(|(n, m)| (*n, m.as_slice()))
    }

    /// A node's own named children (in its piece's tree).
    pub fn own_children<'a>(&'a self, n: Node<'t>, c: &'a mut TreeCursor<'t>) -> impl Iterator<Item = Node<'t>> + 'a {
        // `Node::named_children`'s walk (its iterator borrows the node).
        c.reset(n);
        let mut next = c.goto_first_child();
        std::iter::from_fn(move || {
            while next {
                let node = c.node();
                next = c.goto_next_sibling();
                if node.is_named() {
                    return Some(node);
                }
            }
            None
        })
    }

    /// A node's bytes, to the end of the statements it goes on with.
    pub fn byte_range(&self, n: Node<'t>) -> std::ops::Range<usize> {
        let end = if n.id() == self.root.id() {
            self.end
        } else {
            self.more
                .get(&n.id())
                .and_then(|(_, m)| m.last())
                .map_or(n.end_byte(), |s| s.end().max(n.end_byte()))
        };
        n.start_byte()..end
    }
}

/// CPython refuses this many nested indentation levels.
pub const MAX_INDENT_LEVELS: usize = 100;

/// Where the module's indentation first nests deeper than CPython allows,
/// as a syntax error. Lines inside brackets and strings count too, so this
/// may only ever overcount levels (a module with 100 strictly deepening
/// continuation lines is not read).
pub fn too_deep(text: &str) -> Option<SyntaxError> {
    let mut stack: Vec<usize> = vec![0];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let mut col = 0;
        let mut rest = "";
        for (i, c) in line.char_indices() {
            match c {
                ' ' => col += 1,
                '\t' => col = (col / 8 + 1) * 8,
                '\x0c' => col = 0,
                _ => {
                    rest = &line[i..];
                    break;
                }
            }
        }
        if rest.trim().is_empty() || rest.starts_with('#') {
            continue;
        }
        while stack.last().is_some_and(|&top| col < top) {
            stack.pop();
        }
        if stack.last().is_none_or(|&top| col > top) {
            stack.push(col);
        }
        // The stack holds column 0 under the levels.
        if stack.len() > MAX_INDENT_LEVELS {
            return Some(SyntaxError {
                span: start..start + line.trim_end().len(),
                message: format!(
                    "indentation nested {MAX_INDENT_LEVELS} levels deep: Python refuses the module (too many levels of indentation); not read"
                ),
            });
        }
    }
    None
}

/// The text of a node.
pub fn text<'t>(n: Node, src: &'t str) -> &'t str {
    src.get(n.byte_range()).unwrap_or("")
}

/// How deep a string expression may refer to constants (`A = B + "x"`).
const MAX_DEPTH: usize = 8;

/// A string expression as the text it evaluates to: string literals
/// (implicitly concatenated or joined with `+`), `%` formatting and
/// `.format()` with their fields as placeholders, f-strings with their
/// interpolations as placeholders, and names `constant` resolves to
/// another expression. `None`: not a string the file spells out.
pub fn string<'t>(n: Node<'t>, src: &str, constant: &dyn Fn(&str) -> Option<Node<'t>>) -> Option<Mapped> {
    let mut m = Mapped::default();
    eval(n, src, constant, &mut m, 0)?;
    Some(m)
}

/// `string` of an identifier that spells `name`.
pub fn name_string<'t>(name: &str, src: &str, constant: &dyn Fn(&str) -> Option<Node<'t>>) -> Option<Mapped> {
    let mut m = Mapped::default();
    eval(constant(name)?, src, constant, &mut m, 1)?;
    Some(m)
}

fn eval<'t>(
    n: Node<'t>,
    src: &str,
    constant: &dyn Fn(&str) -> Option<Node<'t>>,
    m: &mut Mapped,
    depth: usize,
) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let k = kinds();
    let f = &k.fields;
    match n.kind_id() {
        kind if kind == k.string => literal(n, src, m),
        kind if kind == k.concatenated_string => {
            let mut c = n.walk();
            for s in n.named_children(&mut c) {
                eval(s, src, constant, m, depth + 1)?;
            }
            Some(())
        }
        kind if kind == k.parenthesized_expression => eval(n.named_child(0)?, src, constant, m, depth + 1),
        kind if kind == k.identifier => eval(constant(text(n, src))?, src, constant, m, depth + 1),
        kind if kind == k.binary_operator => {
            let op = n.child_by_field_id(f.operator)?;
            let left = n.child_by_field_id(f.left)?;
            match text(op, src) {
                "+" => {
                    eval(left, src, constant, m, depth + 1)?;
                    eval(n.child_by_field_id(f.right)?, src, constant, m, depth + 1)
                }
                "%" => {
                    let mut inner = Mapped::default();
                    eval(left, src, constant, &mut inner, depth + 1)?;
                    fields(&inner, m, percent_field);
                    Some(())
                }
                _ => None,
            }
        }
        kind if kind == k.call => {
            // "…".format(…)
            let function = n.child_by_field_id(f.function)?;
            if function.kind_id() != k.attribute || text(function.child_by_field_id(f.attribute)?, src) != "format" {
                return None;
            }
            let mut inner = Mapped::default();
            eval(
                function.child_by_field_id(f.object)?,
                src,
                constant,
                &mut inner,
                depth + 1,
            )?;
            fields(&inner, m, brace_field);
            Some(())
        }
        _ => None,
    }
}

/// Copy `inner` into `m`, each format field (as `field` finds them: its
/// length, or `Some(0)` for an escaped delimiter that reads as one
/// character) a placeholder.
fn fields(inner: &Mapped, m: &mut Mapped, field: fn(&str) -> Option<usize>) {
    let t = &inner.text;
    let mut i = 0;
    while i < t.len() {
        let rest = &t[i..];
        match field(rest) {
            Some(0) => {
                // `%%` or `{{`: one literal character.
                copy(inner, m, i + 1..i + 2);
                i += 2;
            }
            Some(len) => {
                let span = inner.source_span(&(i..i + len)).unwrap_or(0..0);
                m.push_unknown(span, format!("`{}` (a format field)", &rest[..len]));
                i += len;
            }
            None => {
                let len = rest.chars().next().map_or(1, char::len_utf8);
                copy(inner, m, i..i + len);
                i += len;
            }
        }
    }
}

/// Copy bytes `r` of `from`, with the placeholders among them.
fn copy(from: &Mapped, to: &mut Mapped, r: std::ops::Range<usize>) {
    let shift = to.text.len();
    for (at, source, what) in from.unknowns_at(&r) {
        to.unknown.push((
            at.start - r.start + shift..at.end - r.start + shift,
            source.clone(),
            what.clone(),
        ));
    }
    to.text.push_str(&from.text[r.clone()]);
    to.origin.extend_from_slice(&from.origin[r]);
}

/// A `%` conversion at the start of `s` (`%d`, `%5.2f`, `%(name)s`).
fn percent_field(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first() != Some(&b'%') {
        return None;
    }
    if b.get(1) == Some(&b'%') {
        return Some(0);
    }
    let mut i = 1;
    if b.get(i) == Some(&b'(') {
        // A mapping key is short; looking further would make a string of
        // `%(` quadratic.
        i += s[i..].bytes().take(FIELD_MAX).position(|c| c == b')')? + 1;
    }
    while b.get(i).is_some_and(|c| b"#0- +*.0123456789hlL".contains(c)) {
        i += 1;
    }
    b.get(i)
        .is_some_and(|c| b"diouxXeEfFgGcrsa".contains(c))
        .then_some(i + 1)
}

/// A `{…}` replacement field at the start of `s` (`{{` is a brace).
fn brace_field(s: &str) -> Option<usize> {
    if s.starts_with("{{") || s.starts_with("}}") {
        return Some(0);
    }
    if !s.starts_with('{') {
        return None;
    }
    s.bytes().take(FIELD_MAX).position(|c| c == b'}').map(|i| i + 1)
}

/// The longest format field looked for (`%(name)s`, `{name!r:>10}`).
const FIELD_MAX: usize = 256;

/// One string literal (`"…"`, `'…'`, triple-quoted, `r`/`f`/`u` prefixes;
/// bytes are not text).
fn literal(n: Node, src: &str, m: &mut Mapped) -> Option<()> {
    if let Some(content) = plain_literal(n, src) {
        m.push_verbatim(&src[content.clone()], content.start);
        return Some(());
    }
    literal_parts(n, src, m)
}

/// `literal` read from the string's parts.
fn literal_parts(n: Node, src: &str, m: &mut Mapped) -> Option<()> {
    let k = kinds();
    let start = n.child(0).filter(|c| c.kind_id() == k.string_start)?;
    let end = n
        .child(n.child_count().checked_sub(1)?)
        .filter(|c| c.kind_id() == k.string_end)?;
    let prefix = text(start, src).trim_end_matches(['"', '\'']).as_bytes();
    if prefix.iter().any(|c| c.eq_ignore_ascii_case(&b'b')) {
        return None;
    }
    let raw = prefix.iter().any(|c| c.eq_ignore_ascii_case(&b'r'));
    let mut pos = start.end_byte();
    let mut c = n.walk();
    for part in n.named_children(&mut c) {
        match part.kind_id() {
            kind if kind == k.string_content => {
                let mut cc = part.walk();
                for inner in part.named_children(&mut cc) {
                    plain(src, pos, inner.start_byte(), raw, m);
                    if inner.kind_id() == k.escape_sequence && !raw {
                        escape(text(inner, src), inner.start_byte(), m);
                    } else if inner.kind_id() == k.escape_interpolation {
                        // `{{` in an f-string: one brace.
                        m.push_char(text(inner, src).chars().next()?, inner.start_byte());
                    } else {
                        plain(src, inner.start_byte(), inner.end_byte(), true, m);
                    }
                    pos = inner.end_byte();
                }
                plain(src, pos, part.end_byte(), raw, m);
                pos = part.end_byte();
            }
            kind if kind == k.interpolation => {
                m.push_unknown(part.byte_range(), format!("`{}`", text(part, src)));
                pos = part.end_byte();
            }
            kind if kind == k.escape_interpolation => {
                // `{{` in an f-string: one brace.
                m.push_char(text(part, src).chars().next()?, part.start_byte());
                pos = part.end_byte();
            }
            _ => {}
        }
    }
    plain(src, pos, end.start_byte(), raw, m);
    Some(())
}

/// The contents of a string literal that `literal` reads as its bytes,
/// found without its parts: no error or missing token in it, no prefix but
/// `u` or `r`, one quote at each end and between them no quote,
/// backslash, line break or brace (so no escape, no interpolation, no
/// triple quote). Such a string's parts are its start, at most one plain
/// content and its end (tree-sitter-python's scanner ends the string at
/// the first closing quote; an interpolation, or a `{{` read as one,
/// begins with a brace), which `literal_parts` copies verbatim.
fn plain_literal(n: Node, src: &str) -> Option<std::ops::Range<usize>> {
    let range = n.byte_range();
    let t = src.as_bytes().get(range.clone())?;
    let p = t.iter().take_while(|c| matches!(c, b'u' | b'U' | b'r' | b'R')).count();
    let q = *t.get(p)?;
    if !matches!(q, b'"' | b'\'') || t.len() < p + 2 || t[t.len() - 1] != q {
        return None;
    }
    let content = &t[p + 1..t.len() - 1];
    let special = |c: u8| c == q || matches!(c, b'\\' | b'\n' | b'\r' | b'{' | b'}');
    if content.iter().any(|&c| special(c)) || n.has_error() {
        return None;
    }
    Some(range.start + p + 1..range.end - 1)
}

/// Literal characters between `from` and `to`; outside a raw string a
/// backslash escape tree-sitter did not mark is still decoded.
fn plain(src: &str, from: usize, to: usize, raw: bool, m: &mut Mapped) {
    if to <= from {
        return;
    }
    let s = &src[from..to];
    if raw || !s.contains('\\') {
        m.push_verbatim(s, from);
        return;
    }
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '\\' {
            if let Some(&(j, n)) = it.peek() {
                it.next();
                escape(&s[i..j + n.len_utf8()], from + i, m);
                continue;
            }
        }
        m.push_char(c, from + i);
    }
}

/// A backslash escape: the character it stands for, mapped to the escape.
fn escape(esc: &str, at: usize, m: &mut Mapped) {
    let body = &esc[1..];
    let c = match body.chars().next() {
        Some('\n') => return,
        Some('n') => '\n',
        Some('t') => '\t',
        Some('r') => '\r',
        Some('\\') => '\\',
        Some('\'') => '\'',
        Some('"') => '"',
        Some('a') => '\u{7}',
        Some('b') => '\u{8}',
        Some('f') => '\u{c}',
        Some('v') => '\u{b}',
        Some('x' | 'u' | 'U') => match u32::from_str_radix(&body[1..], 16).ok().and_then(char::from_u32) {
            Some(c) => c,
            None => {
                m.push_unknown(at..at + esc.len(), format!("`{esc}`"));
                return;
            }
        },
        Some(d) if d.is_digit(8) => match u32::from_str_radix(body, 8).ok().and_then(char::from_u32) {
            Some(c) => c,
            None => return,
        },
        _ => {
            // An unknown escape keeps its backslash.
            m.push_verbatim(esc, at);
            return;
        }
    };
    m.push_char(c, at);
}

/// An integer literal's value (`1_000`, `0x10`, `-3`, `(-(4))`). Signs and
/// parentheses are unwrapped in a loop: a hostile `- - - … 1` must not
/// exhaust the stack.
pub fn int(mut n: Node, src: &str) -> Option<i64> {
    let k = kinds();
    let mut negative = false;
    loop {
        match n.kind_id() {
            kind if kind == k.unary_operator && text(n.child(0)?, src) == "-" => {
                negative = !negative;
                n = n.child_by_field_id(k.fields.argument)?;
            }
            kind if kind == k.parenthesized_expression => n = n.named_child(0)?,
            kind if kind == k.integer => break,
            _ => return None,
        }
    }
    let t = text(n, src).replace('_', "");
    let lower = t.to_ascii_lowercase();
    let v: i64 = if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()?
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()?
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()?
    } else {
        t.parse().ok()?
    };
    if negative { v.checked_neg() } else { Some(v) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::launch::PLACEHOLDER;

    fn first_expr<'t>(tree: &'t Tree) -> Node<'t> {
        // module > expression_statement > assignment > right
        let stmt = tree.root_node().named_child(0).unwrap();
        let a = stmt.named_child(0).unwrap();
        a.child_by_field_name("right").unwrap()
    }

    fn eval_str(src: &str) -> Option<Mapped> {
        let tree = parse_tree(src).unwrap();
        string(first_expr(&tree), src, &|_| None)
    }

    #[test]
    fn strings_evaluate_with_placeholders() {
        let p = PLACEHOLDER;
        let m = eval_str("s = \"a \" 'b\\tc' + f\"d{x}e{{\"\n").unwrap();
        assert_eq!(m.text, format!("a b\tcd{p}e{{"));
        let m = eval_str("s = \"sink_%u batch=%d %%\" % (i, n)\n").unwrap();
        assert_eq!(m.text, format!("sink_{p} batch={p} %"));
        let m = eval_str("s = \"uri={} n={{}}\".format(u)\n").unwrap();
        assert_eq!(m.text, format!("uri={p} n={{}}"));
        let m = eval_str("s = r\"a\\ b\"\n").unwrap();
        assert_eq!(m.text, "a\\ b");
        assert!(eval_str("s = b\"x\"\n").is_none());
        assert!(eval_str("s = name\n").is_none());
        // Verbatim bytes keep their place in the file.
        let src = "s = \"nvstreammux batch-size=4\"\n";
        let m = eval_str(src).unwrap();
        let at = m.text.find('4').unwrap();
        assert_eq!(
            m.verbatim(&(at..at + 1), src),
            Some(src.find('4').unwrap()..src.find('4').unwrap() + 1)
        );
    }

    #[test]
    fn a_def_body_is_parsed_in_pieces() {
        let src = "import gi\n@dec\ndef main(a,\n         b):  # c\n    x = 1\n    y = (2,\n3)\n\n    # z\n    z = 3\nw = 4\n";
        let cuts = python_cuts::cuts(src);
        let pieces = pieces(src, cuts.clone(), 1);
        let mut seen = Vec::new();
        for (cut, end) in &pieces {
            let mut ranges = Vec::new();
            if let Some(h) = &cut.header {
                ranges.push(h.start..h.end);
            }
            ranges.push(cut.at..*end);
            let at: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
            let p = points(src, &at);
            let ranges: Vec<Range> = ranges
                .iter()
                .map(|r| Range {
                    start_byte: r.start,
                    end_byte: r.end,
                    start_point: p[&r.start],
                    end_point: p[&r.end],
                })
                .collect();
            let mut parser = Parser::new();
            parser.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
            parser.set_included_ranges(&ranges).unwrap();
            let tree = parser.parse(src, None).unwrap();
            seen.push(format!("{ranges:?} {}", tree.root_node().to_sexp()));
        }
        let parsed = parse_by(src, 1).unwrap();
        assert_eq!(parsed.pieces(), 5, "{cuts:?}\n{}", seen.join("\n"));
    }

    #[test]
    fn every_kind_is_the_grammars() {
        let k = kinds();
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let kind_ids = [
            (k.module, "module"),
            (k.block, "block"),
            (k.identifier, "identifier"),
            (k.call, "call"),
            (k.function_definition, "function_definition"),
            (k.parameters, "parameters"),
            (k.default_parameter, "default_parameter"),
            (k.typed_parameter, "typed_parameter"),
            (k.assignment, "assignment"),
            (k.augmented_assignment, "augmented_assignment"),
            (k.for_statement, "for_statement"),
            (k.named_expression, "named_expression"),
            (k.rebinding[0], "global_statement"),
            (k.rebinding[1], "nonlocal_statement"),
            (k.expression_statement, "expression_statement"),
            (k.attribute, "attribute"),
            (k.decorated_definition, "decorated_definition"),
            (k.string, "string"),
            (k.concatenated_string, "concatenated_string"),
            (k.parenthesized_expression, "parenthesized_expression"),
            (k.binary_operator, "binary_operator"),
            (k.unary_operator, "unary_operator"),
            (k.integer, "integer"),
            (k.string_start, "string_start"),
            (k.string_end, "string_end"),
            (k.string_content, "string_content"),
            (k.interpolation, "interpolation"),
            (k.escape_interpolation, "escape_interpolation"),
            (k.escape_sequence, "escape_sequence"),
        ]
        .map(|(id, name)| (id, name, language.node_kind_for_id(id)));
        let f = &k.fields;
        let names = [
            "left",
            "right",
            "name",
            "parameters",
            "function",
            "arguments",
            "object",
            "attribute",
            "operator",
            "argument",
            "body",
            "definition",
        ];
        let ids = [
            f.left,
            f.right,
            f.name,
            f.parameters,
            f.function,
            f.arguments,
            f.object,
            f.attribute,
            f.operator,
            f.argument,
            f.body,
            f.definition,
        ];
        let field_ids = ids.map(|id| (id, language.field_name_for_id(id)));
        let field_ids = field_ids
            .into_iter()
            .zip(names)
            .map(|((id, named), name)| (id, name, named));
        for (id, name, named) in kind_ids.into_iter().chain(field_ids) {
            assert_ne!(id, 0, "{name}");
            assert_eq!(named, Some(name));
        }
        assert!(!k.with_left.contains(&0));
        // The ids the tree's nodes carry.
        let tree = parse_tree("def f(a, b=1):\n    x = g(a)\n").unwrap();
        let def = tree.root_node().named_child(0).unwrap();
        assert_eq!(def.kind_id(), k.function_definition);
        assert_eq!(tree.root_node().kind_id(), k.module);
    }

    /// Whether every string of `src` (a broken module's too) reads the
    /// same from its bytes (`plain_literal`, where it applies) as from its
    /// parts; how many read from their bytes.
    fn literals_agree(src: &str) -> Result<usize, String> {
        let Some(tree) = parse_tree(src) else {
            return Ok(0);
        };
        let mut c = tree.walk();
        let mut stack = vec![tree.root_node()];
        let mut plain = 0;
        while let Some(n) = stack.pop() {
            stack.extend(n.children(&mut c));
            if n.kind() != "string" {
                continue;
            }
            let (mut fast, mut parts) = (Mapped::default(), Mapped::default());
            let a = literal(n, src, &mut fast);
            let b = literal_parts(n, src, &mut parts);
            plain += usize::from(plain_literal(n, src).is_some());
            if a != b || fast.text != parts.text || fast.origin != parts.origin || fast.unknown != parts.unknown {
                return Err(format!("{src:?}: {:?} / {:?}", fast.text, parts.text));
            }
        }
        Ok(plain)
    }

    /// Every string literal reads the same from its bytes as from its
    /// parts: prefixes, quotes, escapes, braces, line breaks and quotes
    /// inside, generated, and broken f-strings whose recovery reads a
    /// plain string's braces as an interpolation.
    #[test]
    fn plain_literals_read_as_their_parts() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        for src in [
            "s = f'{\"{f'{y}'}' + 'x'\n",
            "s = f'{\"{x}' + 'x'\n",
            "s = f'{\"}}' + \"a\"\n",
        ] {
            literals_agree(src).unwrap();
        }
        let mut runner = TestRunner::new(Config {
            cases: 2000,
            ..Config::default()
        });
        let prefix = prop::sample::select(vec!["", "u", "U", "r", "R", "b", "f", "F", "rb", "fr", "t", "ur", "Rb"]);
        let quote = prop::sample::select(vec!["\"", "'", "\"\"\"", "'''"]);
        let body = prop::collection::vec(
            prop::sample::select(vec![
                "a", " ", "é", "{", "}", "{x}", "{{", "\\", "\\n", "\\x41", "\\'", "\\\"", "'", "\"", "\n", "%d",
                "\r\n", "f'{y}'",
            ]),
            0..8,
        );
        let plain = std::cell::Cell::new(0);
        runner
            .run(&(prefix, quote, body), |(prefix, quote, body)| {
                let src = format!("s = {prefix}{quote}{}{quote} + 'x'\n", body.concat());
                let n = literals_agree(&src).map_err(TestCaseError::fail)?;
                plain.set(plain.get() + n);
                Ok(())
            })
            .unwrap();
        assert!(plain.get() > 100, "{}", plain.get());
    }

    #[test]
    fn integers() {
        let src = "a = -1_000\n";
        let tree = parse_tree(src).unwrap();
        assert_eq!(int(first_expr(&tree), src), Some(-1000));
        let src = "a = 0x10\n";
        let tree = parse_tree(src).unwrap();
        assert_eq!(int(first_expr(&tree), src), Some(16));
    }
}
