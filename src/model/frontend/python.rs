//! Python apps: GStreamer's Python bindings in the style of NVIDIA's
//! deepstream_python_apps (`x = Gst.ElementFactory.make("nvstreammux", …)`,
//! `x.set_property("batch-size", 4)`, `a.link(b)`, `mux.get_request_pad(
//! "sink_0")`), pipeline strings (`Gst.parse_launch("…")`, read by the
//! gst-launch front end) and pyservicemaker's Pipeline API
//! (`pipeline.add("nvstreammux", "mux", {"batch-size": 4})`,
//! `pipeline.link("mux", "infer")`).
//!
//! Nothing is run and nothing is guessed. Each function body (and the
//! module's top level) is read statement by statement:
//! - a name, or an attribute path of names (`self.sink`, `app.mux`), is
//!   bound to the element a `make` call returns; a name bound differently
//!   in the branches of an `if` (or rebound in a loop) is no element after
//!   it; rebinding `x` unbinds `x.…`. A property that another method sets
//!   through the same attribute (`self.sink.set_property("sync", …)` in
//!   `start()`) is unknown: methods are read one at a time;
//! - an element made under a condition (`if`, `while`, a loop whose count
//!   is not a literal, an `except`) may not exist: it is left out of the
//!   pipeline;
//! - a property set under a condition its element was not made under is
//!   unknown (it may or may not be set);
//! - a value is a literal, a module constant (a name assigned once, at the
//!   top level, to a literal) or unknown (`len(args)`: not a guess). A fix
//!   edits a literal argument, or a constant's literal when that is its
//!   only use; a value from an expression has no fix;
//! - the streams are the mux's `sink_N` pad requests, counted through
//!   literal loops, when the sources made agree with them;
//! - a pipeline that may lack elements the module makes (one left out as
//!   made under a condition; elements made in another function, or a
//!   pipeline string beside) is `partial`: a role it lacks is unknown.

use std::collections::{HashMap, HashSet};

/// The front end's maps and sets, keyed by names and node ids: hashed with
/// foldhash, not SipHash (a module of 100k names looks each up several
/// times; the keys come from one file, whose size is capped).
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = HashSet<K, foldhash::fast::RandomState>;

use tree_sitter::{Node, TreeCursor};

use crate::base::{FileId, Span};
use crate::model::frontend::bindings::Bindings;
use crate::model::frontend::gst::{self, Found};
use crate::model::frontend::launch;
use crate::model::graph::{Home, Layer, Link, Pipeline, Role, Setting, Site, Value};
use crate::model::workspace::Workspace;
use crate::syntax::launch::Mapped;
use crate::syntax::python::{self, Item, View, text};
use crate::syntax::python_plain::{self, ArgKind, Plain};

/// Every pipeline a module builds, from its syntax trees
/// (`syntax::python::parse` of its text; `None`: not read).
pub fn build(ws: &mut Workspace, file: FileId, parsed: Option<python::Parsed>) -> Vec<Pipeline> {
    let Some(first) = &parsed else {
        return Vec::new();
    };
    let src = ws.files[file].doc.text.clone();
    // Pieces that do not join as their cuts say (never seen): the whole
    // module, parsed here.
    let whole;
    let view = match first.view() {
        Some(view) => view,
        None => {
            whole = python::parse_by(&src, usize::MAX);
            match whole.as_ref().and_then(|w| w.view()) {
                Some(view) => view,
                None => return Vec::new(),
            }
        }
    };
    let (module, scopes) = Module::new(&view, &src);
    let mut out = Vec::new();
    let mut strings = Vec::new();
    // Scopes that make elements: each is read on its own, so with more
    // than one (or a pipeline string beside) any pipeline may lack what
    // another function adds to it.
    let mut making = 0usize;
    for (body, function) in scopes {
        let (names, walked) = Names::new(&module, body, function);
        let mut s = Scope::new(&names, walked, file, body);
        s.block(body, Cond::default());
        s.find_launches();
        work(s.env.steps as u64);
        strings.append(&mut s.launches);
        making += usize::from(!s.elements.is_empty());
        if s.elements.iter().any(|e| e.certain) {
            // An element made under a condition is left out of it.
            let left_out = s.elements.iter().any(|e| !e.certain);
            let mut p = s.finish(ws);
            p.partial = left_out;
            out.push(p);
        }
    }
    if making > 1 || !strings.is_empty() {
        for p in &mut out {
            p.partial = true;
        }
    }
    drop(module);
    drop(view);
    if let Some(p) = parsed {
        p.free();
    }
    for m in strings {
        out.extend(launch::build(ws, file, &src, &m).into_iter().map(|mut p| {
            p.partial |= making > 0;
            p
        }));
    }
    out
}

thread_local! {
    /// The front end's work on this thread: nodes visited, statements read,
    /// bindings changed. The tests check it grows linearly with a module.
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn work(n: u64) {
    WORK.with(|w| w.set(w.get().saturating_add(n)));
}

/// The work done on this thread so far (see `WORK`).
pub fn work_done() -> u64 {
    WORK.with(|w| w.get())
}

/// A `set_property` call on an attribute: its key (`None`: not a
/// literal), where it starts, its line (from 0).
type AttributeSet = (Option<String>, usize, usize);

/// What the module says once for all its scopes: its top-level constants.
struct Module<'v, 't> {
    view: &'v View<'t>,
    src: &'t str,
    /// Names assigned once in the whole module, at the top level: their
    /// value expression.
    constants: Map<&'t str, Node<'t>>,
    /// Names some function declares `global` or `nonlocal`: a function
    /// assigns them for another scope (a nested function rebinds its
    /// caller's, `global X` makes a read before the assignment the
    /// module's), so no function's single assignment makes them constant.
    rebound: Set<&'t str>,
    /// How many times each name appears.
    uses: Map<&'t str, usize>,
    /// `<obj>.<attr>.set_property("key", …)` calls anywhere in the module,
    /// by `attr`: the key (`None`: not a literal), where the call starts and
    /// its line (from 0).
    /// An element bound to an attribute may be set from another method.
    attribute_sets: Map<&'t str, Vec<AttributeSet>>,
    /// What each scope's walk found, by the node it starts at (a
    /// function's for its parameters, its body's for the body; the
    /// module's for the top level), taken by the scope.
    walks: std::sync::Mutex<Map<usize, Walked<'t>>>,
    /// The quote the file's `set_property` keys use.
    quote: char,
}

/// Which scope's walk a node belongs to: a scope reads its function's
/// parameters and its body, not the functions it defines (nor their
/// names, return types, …).
#[derive(Clone, Copy)]
enum Owner {
    /// The module's top level: its `parse_launch` calls.
    Module,
    /// A function's parameters (keyed by the function): its locals.
    Params(usize),
    /// A function's body (keyed by the body): its locals and its
    /// `parse_launch` calls.
    Body(usize),
    Nowhere,
}

/// What a scope's walk finds.
#[derive(Default)]
struct Walked<'t> {
    /// Names of parameters and of the targets of assignments, `for`s, …
    /// (once for each time they are bound).
    locals: Vec<&'t str>,
    /// Names assigned with `=`, with the value.
    assigned_once: Vec<(&'t str, Node<'t>)>,
    /// `parse_launch` calls, in the order of a walk from the scope that
    /// takes a node's last child first.
    launch_calls: Vec<Node<'t>>,
    /// The names `(x := …)` binds, each with where it starts, in order.
    walrus: Vec<(usize, &'t str)>,
}

impl<'v, 't> Module<'v, 't> {
    /// The module's facts, and its scopes: its top level, every function
    /// body and every method body, in file order, each with its function's
    /// definition.
    fn new(view: &'v View<'t>, src: &'t str) -> (Self, Vec<(Node<'t>, Option<Node<'t>>)>) {
        let root = view.root();
        // The walk of the module (see `walk`), in parts on all threads: the
        // module's tree to where it goes on with later pieces' statements,
        // and those statements in runs; the parts joined in order.
        let mut tasks: Vec<(usize, Task<'_, 't>)> = vec![(
            root.id(),
            Task {
                nodes: &[],
                root: Some(root),
                parent: root,
                owner: Owner::Module,
            },
        )];
        for (home, stmts) in view.continued() {
            let owner = if home.id() == root.id() {
                Owner::Module
            } else {
                // The body of a top-level `def`.
                Owner::Body(home.id())
            };
            for run in stmts.chunks(stmts.len().div_ceil(RUNS).max(1)) {
                tasks.push((
                    home.id(),
                    Task {
                        nodes: run,
                        root: None,
                        parent: home,
                        owner,
                    },
                ));
            }
        }
        let parts: Vec<Vec<Part<'t>>> = if tasks.len() == 1 {
            vec![walk(view, src, root.id(), &tasks[0].1)]
        } else {
            use rayon::prelude::*;
            tasks.par_iter().map(|(_, t)| walk(view, src, root.id(), t)).collect()
        };
        // The runs of each node's later statements, in order.
        let mut runs: Map<usize, Vec<Vec<Part<'t>>>> = Map::default();
        let mut parts = parts.into_iter();
        let first = parts.next().unwrap_or_default();
        for ((home, _), p) in tasks.iter().skip(1).zip(parts) {
            runs.entry(*home).or_default().push(p);
        }
        let mut facts = Facts::default();
        // Join the parts: a `More` is where the runs of its node go.
        let mut pending: Vec<std::vec::IntoIter<Part<'t>>> = vec![first.into_iter()];
        while let Some(top) = pending.last_mut() {
            match top.next() {
                None => {
                    pending.pop();
                }
                Some(Part::Facts(f)) => facts.join(*f),
                Some(Part::More(id)) => {
                    for run in runs.remove(&id).into_iter().flatten().rev() {
                        pending.push(run.into_iter());
                    }
                }
            }
        }
        work(facts.work);
        let Facts {
            assigned,
            uses,
            rebound,
            scopes,
            sets_after,
            mut walks,
            work: _,
        } = facts;
        let mut attribute_sets: Map<&str, Vec<AttributeSet>> = Map::default();
        for (attr, set) in sets_after.into_iter().rev() {
            attribute_sets.entry(attr).or_default().push(set);
        }
        for w in walks.values_mut() {
            // As a walk from the scope that takes a node's last child
            // first meets them.
            w.launch_calls.reverse();
        }
        let mut constants = Map::default();
        let mut c = root.walk();
        for stmt in view.children(root, &mut c) {
            // Plain lines are only ever in a function's body.
            let Item::Node(stmt) = stmt else {
                continue;
            };
            let Some(a) = stmt
                .named_child(0)
                .filter(|a| stmt.kind() == "expression_statement" && a.kind() == "assignment")
            else {
                continue;
            };
            let (Some(left), Some(right)) = (a.child_by_field_name("left"), a.child_by_field_name("right")) else {
                continue;
            };
            let name = text(left, src);
            if left.kind() == "identifier" && assigned.get(name) == Some(&1) {
                constants.insert(name, right);
            }
        }
        let module = Module {
            view,
            src,
            constants,
            rebound,
            uses,
            attribute_sets,
            walks: std::sync::Mutex::new(walks),
            quote: if src.contains("set_property('") { '\'' } else { '"' },
        };
        (module, scopes)
    }
}

/// Into how many parts the statements a node goes on with in later pieces
/// are split for the module's walk (at most).
const RUNS: usize = 64;

/// A part of the module's walk: the module's tree from its root (`root`),
/// or a run of statements (`nodes`) a node (`parent`) goes on with, in the
/// scope `owner`.
struct Task<'a, 't> {
    nodes: &'a [Item<'t>],
    root: Option<Node<'t>>,
    parent: Node<'t>,
    owner: Owner,
}

/// What a part of the walk found, in order: facts, and where the
/// statements a node goes on with in later pieces are walked (by the
/// node's id).
enum Part<'t> {
    Facts(Box<Facts<'t>>),
    More(usize),
}

/// What the module's walk finds (see `walk`).
#[derive(Default)]
struct Facts<'t> {
    /// How many times each name is a target of an assignment, a `for`, …
    assigned: Map<&'t str, usize>,
    uses: Map<&'t str, usize>,
    rebound: Set<&'t str>,
    scopes: Vec<(Node<'t>, Option<Node<'t>>)>,
    /// The `set_property` calls on attributes, in post-order.
    sets_after: Vec<(&'t str, AttributeSet)>,
    walks: Map<usize, Walked<'t>>,
    /// Nodes visited (the front end's `work`).
    work: u64,
}

impl<'t> Facts<'t> {
    /// `later`'s facts after these.
    fn join(&mut self, later: Facts<'t>) {
        if self.work == 0 {
            // Nothing visited, nothing found.
            *self = later;
            return;
        }
        for (name, n) in later.assigned {
            *self.assigned.entry(name).or_default() += n;
        }
        for (name, n) in later.uses {
            *self.uses.entry(name).or_default() += n;
        }
        self.rebound.extend(later.rebound);
        self.scopes.extend(later.scopes);
        self.sets_after.extend(later.sets_after);
        for (key, w) in later.walks {
            let mine = self.walks.entry(key).or_default();
            mine.locals.extend(w.locals);
            mine.assigned_once.extend(w.assigned_once);
            mine.launch_calls.extend(w.launch_calls);
            mine.walrus.extend(w.walrus);
        }
        self.work += later.work;
    }
}

/// One part of the module's walk: children in order, each node with its
/// parent, whether it is the parent's `left`, which scope's walk it
/// belongs to (see `Owner`), and, once its children are done, its calls
/// (`Walker::leave`). `Node::parent` walks down from the root past every
/// sibling, and `child_by_field_name` scans the parent's children: asking
/// either of every node would be quadratic (in a module of many
/// functions, in a long list). One cursor goes down and along the tree
/// (each `walk()` allocates, and setting a cursor on each node to list
/// its children starts over from the node each time). The statements a
/// node goes on with in later pieces are other parts' (a `Part::More`
/// where they go).
fn walk<'t>(view: &View<'t>, src: &'t str, module: usize, task: &Task<'_, 't>) -> Vec<Part<'t>> {
    let mut w = Walker {
        view,
        src,
        module,
        k: python::kinds(),
        parts: Vec::new(),
        f: Facts::default(),
        frames: Vec::new(),
        ids: task.parent.walk(),
    };
    let mut c = task.parent.walk();
    let starts: Vec<(Item<'t>, Option<Node<'t>>)> = match task.root {
        Some(root) => vec![(Item::Node(root), None)],
        None => task.nodes.iter().map(|n| (*n, Some(task.parent))).collect(),
    };
    for (start, parent) in starts {
        let start = match start {
            Item::Node(n) => n,
            Item::Plain(p) => {
                w.plain(p, task.owner);
                continue;
            }
        };
        c.reset(start);
        w.enter(start, parent, false, task.owner);
        'down: loop {
            if w.frames.last().is_some_and(|f| f.descend) && first_named_child(&mut c) {
                w.enter_child(c.node());
                continue;
            }
            // Leave nodes until one has a next named sibling.
            loop {
                w.leave();
                if w.frames.is_empty() {
                    break 'down;
                }
                if next_named_sibling(&mut c) {
                    w.enter_child(c.node());
                    continue 'down;
                }
                c.goto_parent();
            }
        }
    }
    w.parts.push(Part::Facts(Box::new(w.f)));
    w.parts
}

/// Move the cursor to its node's first named child (`false`: it has none;
/// the cursor is where it was).
fn first_named_child(c: &mut TreeCursor) -> bool {
    if !c.goto_first_child() {
        return false;
    }
    loop {
        if c.node().is_named() {
            return true;
        }
        if !c.goto_next_sibling() {
            c.goto_parent();
            return false;
        }
    }
}

/// Move the cursor to its node's next named sibling (`false`: none; the
/// cursor is on one of the parent's children).
fn next_named_sibling(c: &mut TreeCursor) -> bool {
    while c.goto_next_sibling() {
        if c.node().is_named() {
            return true;
        }
    }
    false
}

/// The module walk's state (see `walk`).
struct Walker<'v, 't> {
    view: &'v View<'t>,
    src: &'t str,
    module: usize,
    k: &'static python::Kinds,
    parts: Vec<Part<'t>>,
    f: Facts<'t>,
    /// The nodes entered and not yet left, outermost first.
    frames: Vec<Frame<'t>>,
    /// A cursor for the names a target or a `global` statement holds.
    ids: TreeCursor<'t>,
}

/// A node the walk is in.
struct Frame<'t> {
    node: Node<'t>,
    kind: u16,
    owner: Owner,
    /// Its child that a binding binds (an assignment's `left`, a walrus's
    /// `name`), and a function's parameters.
    left: Option<Node<'t>>,
    params: Option<Node<'t>>,
    /// Whether its children are walked: a string's only when it may hold
    /// names (`may_hold_names`).
    descend: bool,
    /// Whether it goes on with statements of later pieces.
    more: bool,
}

impl<'t> Walker<'_, 't> {
    /// Enter a child of the innermost frame's node.
    fn enter_child(&mut self, child: Node<'t>) {
        let Some(p) = self.frames.last() else {
            return;
        };
        let k = self.k;
        let owner = if p.kind != k.function_definition {
            p.owner
        } else if Some(child) == p.params {
            Owner::Params(p.node.id())
        } else if child.kind_id() == k.block {
            Owner::Body(child.id())
        } else {
            Owner::Nowhere
        };
        let is_left = Some(child) == p.left;
        let parent = p.node;
        self.enter(child, Some(parent), is_left, owner);
    }

    /// What a node says before its children, and its frame.
    fn enter(&mut self, n: Node<'t>, parent: Option<Node<'t>>, is_left: bool, owner: Owner) {
        let (k, src, module) = (self.k, self.src, self.module);
        let f = &mut self.f;
        f.work += 1;
        let kind = n.kind_id();
        let mut descend = true;
        if kind == k.module {
            f.scopes.push((n, None));
        } else if kind == k.block {
            if let Some(d) = parent.filter(|p: &Node| p.kind_id() == k.function_definition) {
                f.scopes.push((n, Some(d)));
            }
        } else if kind == k.identifier {
            *f.uses.entry(text(n, src)).or_default() += 1;
            let of = parent.map_or(0, |p| p.kind_id());
            if is_left && of == k.named_expression {
                // `(x := …)` binds x in the scope it is in: a name
                // the statement walk unbinds there.
                let key = match owner {
                    Owner::Module => Some(module),
                    Owner::Body(key) => Some(key),
                    Owner::Params(_) | Owner::Nowhere => None,
                };
                if let Some(key) = key {
                    f.walks
                        .entry(key)
                        .or_default()
                        .walrus
                        .push((n.start_byte(), text(n, src)));
                }
            }
            if let Owner::Params(key) | Owner::Body(key) = owner {
                // A parameter or a name bound here is local.
                let parameter = of == k.parameters || of == k.default_parameter || of == k.typed_parameter;
                if parameter || is_left {
                    let w = f.walks.entry(key).or_default();
                    w.locals.push(text(n, src));
                    if of == k.assignment {
                        if let Some(right) = parent.and_then(|p| p.child_by_field_id(k.fields.right)) {
                            w.assigned_once.push((text(n, src), right));
                        }
                    }
                }
            }
        } else if kind == k.string {
            descend = may_hold_names(n, src);
        } else if k.rebinding.contains(&kind) {
            f.rebound.extend(
                n.named_children(&mut self.ids)
                    .filter(|i| i.kind_id() == k.identifier)
                    .map(|i| text(i, src)),
            );
        }
        let bound_field = if kind == k.named_expression {
            k.fields.name
        } else {
            k.fields.left
        };
        if kind == k.assignment
            || kind == k.augmented_assignment
            || kind == k.for_statement
            || kind == k.named_expression
        {
            if let Some(left) = n.child_by_field_id(bound_field) {
                let mut ids = vec![left];
                while let Some(t) = ids.pop() {
                    f.work += 1;
                    if t.kind_id() == k.identifier {
                        *f.assigned.entry(text(t, src)).or_default() += 1;
                    }
                    ids.extend(t.named_children(&mut self.ids));
                }
            }
        }
        let left = (k.with_left.contains(&kind) || kind == k.named_expression)
            .then(|| n.child_by_field_id(bound_field))
            .flatten();
        // A function's parameters and body are its scope's walk; the
        // rest of its definition is no scope's.
        let params = (kind == k.function_definition)
            .then(|| n.child_by_field_id(k.fields.parameters))
            .flatten();
        self.frames.push(Frame {
            node: n,
            kind,
            owner,
            left,
            params,
            descend,
            more: !self.view.more(n).is_empty(),
        });
    }

    /// What a plain line (`python_plain`) says: what `enter` and `leave`
    /// find in its tree (an expression statement of an assignment to a
    /// name or of a call; identifiers, no string that may hold names, no
    /// launch call, no `set_property` on an attribute).
    fn plain(&mut self, p: &Plain, owner: Owner) {
        let (src, f) = (self.src, &mut self.f);
        f.work += 1;
        for name in p.names() {
            *f.uses.entry(&src[name]).or_default() += 1;
        }
        if let Some(t) = &p.target {
            let name = &src[t.clone()];
            *f.assigned.entry(name).or_default() += 1;
            if let Owner::Params(key) | Owner::Body(key) = owner {
                // A name assigned a call: local, and never a constant
                // (`Names::constant` of it finds no value either way: a
                // call other than `format` evaluates to nothing).
                f.walks.entry(key).or_default().locals.push(name);
            }
        }
    }

    /// Leave the innermost frame: its node's children are done.
    fn leave(&mut self) {
        let Some(fr) = self.frames.pop() else {
            return;
        };
        let (k, src, f) = (self.k, self.src, &mut self.f);
        if fr.more {
            // The statements it goes on with are walked here.
            self.parts.push(Part::Facts(Box::new(std::mem::take(f))));
            self.parts.push(Part::More(fr.node.id()));
            return;
        }
        if fr.kind != k.call {
            return;
        }
        let n = fr.node;
        if let Some((attr, key)) = attribute_set_property(n, src) {
            f.sets_after.push((attr, (key, n.start_byte(), n.start_position().row)));
        }
        let calls_of = match fr.owner {
            Owner::Module => Some(self.module),
            Owner::Body(key) => Some(key),
            Owner::Params(_) | Owner::Nowhere => None,
        };
        if let Some(key) = calls_of.filter(|_| is_launch_call(n, src)) {
            f.walks.entry(key).or_default().launch_calls.push(n);
        }
    }
}

/// Whether a string may hold names (an interpolation's), so the module
/// walk goes into it: unless it has no error or missing token in it and
/// no `{` (with which every interpolation begins; tree-sitter-python reads
/// one only after an `f` or `t` prefix, but a broken module's recovery
/// may read a plain string's brace as one too).
fn may_hold_names(n: Node, src: &str) -> bool {
    n.has_error()
        || src
            .as_bytes()
            .get(n.byte_range())
            .is_none_or(|t| memchr::memchr(b'{', t).is_some())
}

/// Blocks nested deeper than this (or calls chained longer) are not read:
/// no app needs it, and a hostile file must not exhaust the stack.
const MAX_NESTING: u16 = 64;

/// Where a statement runs.
#[derive(Debug, Clone, Copy, Default)]
struct Cond {
    /// Under a condition (it may not run).
    conditional: bool,
    /// How many times it runs, through literal loops; `None`: not known.
    times: Option<u32>,
    /// How deep its block is nested.
    depth: u16,
}

impl Cond {
    fn times(self) -> Option<u32> {
        Some(self.times.unwrap_or(1))
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Bind {
    Element(usize),
    /// A pad of an element (`get_static_pad`, `get_request_pad`).
    Pad(usize),
    /// A pyservicemaker `Pipeline`.
    ServiceMaker,
}

struct Made {
    factory: String,
    name: String,
    make: Span,
    certain: bool,
    times: Option<u32>,
    props: gst::Props,
    /// The block it was made in, and where a new statement goes.
    block: usize,
    anchor: Option<(usize, String)>,
    receiver: Option<String>,
    /// Requested `sink_N` pads: their count, `None` once one is not
    /// countable.
    pads: Option<u32>,
}

/// What a scope's names stand for before its statements are read: the
/// module's constants, unless a name is local, and the scope's own
/// constants. Shared by the threads that read its statements ahead.
struct Names<'m, 'v, 't> {
    m: &'m Module<'v, 't>,
    /// Names assigned in this scope (they hide module constants), with how
    /// many times, and those assigned once: their value.
    locals: Map<&'t str, usize>,
    local_constants: Map<&'t str, Node<'t>>,
}

/// What the module's walk found for a scope that its statement walk takes:
/// its `parse_launch` calls and the names `(x := …)` binds.
struct ScopeWalked<'t> {
    launch_calls: Vec<Node<'t>>,
    walrus: Vec<(usize, &'t str)>,
}

struct Scope<'m, 'v, 't> {
    m: &'m Module<'v, 't>,
    names: &'m Names<'m, 'v, 't>,
    file: FileId,
    /// The scope's own bytes (a function body, or the whole module).
    body: Span,
    env: Bindings<Bind>,
    elements: Vec<Made>,
    links: Vec<(usize, usize)>,
    /// The scope's `parse_launch` calls (not its functions'), in the order
    /// of a walk that takes a node's last child first.
    launch_calls: Vec<Node<'t>>,
    launches: Vec<Mapped>,
    /// The quote the file's `set_property` keys use.
    quote: char,
    /// How many elements of each factory were made so far.
    made_per_factory: Map<String, usize>,
    /// The last element made with each name.
    by_name: Map<String, usize>,
    /// The names `(x := …)` binds in this scope, each with where it
    /// starts, in order.
    walrus: Vec<(usize, &'t str)>,
}

impl<'m, 'v, 't> Names<'m, 'v, 't> {
    /// `function`: the definition whose body `body` is (`None`: the
    /// module's top level).
    fn new(m: &'m Module<'v, 't>, body: Node<'t>, function: Option<Node<'t>>) -> (Self, ScopeWalked<'t>) {
        // What the module's walk found for this scope: a function's
        // parameters and body, or the top level's calls.
        let mut walks = m.walks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut found = walks.remove(&body.id()).unwrap_or_default();
        let walrus = std::mem::take(&mut found.walrus);
        let (locals, assigned_once, launch_calls) = match function {
            Some(f) => {
                let params = walks.get(&f.id());
                let mut locals = found.locals;
                locals.extend(params.into_iter().flat_map(|p| p.locals.iter().copied()));
                let mut assigned_once = found.assigned_once;
                assigned_once.extend(params.into_iter().flat_map(|p| p.assigned_once.iter().copied()));
                (locals, assigned_once, found.launch_calls)
            }
            None => (Vec::new(), Vec::new(), std::mem::take(&mut found.launch_calls)),
        };
        drop(walks);
        let mut bound: Map<&str, usize> = Map::with_capacity_and_hasher(locals.len(), Default::default());
        for l in locals {
            *bound.entry(l).or_default() += 1;
        }
        let local_constants = assigned_once
            .into_iter()
            .filter(|(name, _)| bound.get(name) == Some(&1) && !m.rebound.contains(name))
            .collect();
        (
            Names {
                m,
                locals: bound,
                local_constants,
            },
            ScopeWalked { launch_calls, walrus },
        )
    }

    fn src(&self) -> &'t str {
        self.m.src
    }

    /// A module constant's value expression, unless the name is local here.
    fn constant(&self, name: &str) -> Option<Node<'t>> {
        if let Some(n) = self.local_constants.get(name) {
            return Some(*n);
        }
        if self.locals.contains_key(name) {
            return None;
        }
        self.m.constants.get(name).copied()
    }

    fn int(&self, n: Node<'t>) -> Option<i64> {
        python::int(n, self.src()).or_else(|| {
            let c = (n.kind() == "identifier")
                .then(|| self.constant(text(n, self.src())))
                .flatten()?;
            python::int(c, self.src())
        })
    }

    fn string(&self, n: Node<'t>) -> Option<String> {
        let m = python::string(n, self.src(), &|name| self.constant(name))?;
        m.unknown.is_empty().then_some(m.text)
    }

    /// A value's text and the literal node that writes it (the argument, or
    /// a constant's literal when the argument is its only use).
    fn literal(&self, n: Node<'t>) -> (Option<String>, Option<Node<'t>>) {
        let src = self.src();
        match n.kind() {
            "integer" | "unary_operator" => (python::int(n, src).map(|v| v.to_string()), Some(n)),
            "float" => (Some(text(n, src).replace('_', "")), Some(n)),
            "true" => (Some("true".into()), Some(n)),
            "false" => (Some("false".into()), Some(n)),
            "string" | "concatenated_string" => (self.string(n), Some(n)),
            "identifier" => self.literal_name(text(n, src)),
            _ => (None, None),
        }
    }

    /// `literal` of a name.
    fn literal_name(&self, name: &str) -> (Option<String>, Option<Node<'t>>) {
        let Some(c) = self.constant(name) else {
            return (None, None);
        };
        let (v, lit) = self.literal_only(c);
        // The constant's own line is one use; the argument another.
        let only_here = self.m.uses.get(name) == Some(&2);
        (v, lit.filter(|_| only_here))
    }

    /// `string` of an argument.
    fn arg_string(&self, a: Arg<'t>) -> Option<String> {
        let src = self.src();
        match a {
            Arg::Node(n) => self.string(n),
            Arg::Plain(p) => match p.kind {
                ArgKind::Str => Some(src[p.content()].to_string()),
                ArgKind::Name => {
                    let m = python::name_string(&src[p.span.clone()], src, &|name| self.constant(name))?;
                    m.unknown.is_empty().then_some(m.text)
                }
                ArgKind::Int | ArgKind::True | ArgKind::False => None,
            },
            Arg::Object(_) => None,
        }
    }

    fn literal_only(&self, n: Node<'t>) -> (Option<String>, Option<Node<'t>>) {
        match n.kind() {
            "identifier" => (None, None),
            _ => self.literal(n),
        }
    }

    /// What a value written in code says (see `Scope::setting`).
    fn written(&self, value: Arg<'t>) -> Written {
        let src = self.src();
        let (known, edit) = match value {
            Arg::Node(n) => {
                let (known, literal) = self.literal(n);
                (known, literal.and_then(|l| editable(l, src)))
            }
            // What `literal` and `editable` make of the nodes
            // tree-sitter reads these as (`python_plain`).
            Arg::Plain(p) => {
                let t = &src[p.span.clone()];
                match p.kind {
                    ArgKind::Int => (Some(t.to_string()), Some(p.span.clone())),
                    ArgKind::True => (Some("true".into()), Some(p.span.clone())),
                    ArgKind::False => (Some("false".into()), Some(p.span.clone())),
                    ArgKind::Str => (Some(src[p.content()].to_string()), Some(p.content())),
                    ArgKind::Name => {
                        let (known, literal) = self.literal_name(t);
                        (known, literal.and_then(|l| editable(l, src)))
                    }
                }
            }
            Arg::Object(_) => (None, None),
        };
        let shown = match known {
            Some(v) => Value::Known(v.into()),
            None => Value::Unknown(format!("`{}`", short(&src[value.span()]))),
        };
        Written {
            shown,
            edit,
            at: value.span(),
        }
    }
}

/// What a value written in code says: its value (known when it is a
/// literal or a module constant), the literal an edit can replace, and
/// its bytes.
struct Written {
    shown: Value,
    edit: Option<Span>,
    at: Span,
}

impl<'m, 'v, 't> Scope<'m, 'v, 't> {
    fn new(names: &'m Names<'m, 'v, 't>, walked: ScopeWalked<'t>, file: FileId, body: Node<'t>) -> Self {
        let m = names.m;
        Scope {
            m,
            names,
            file,
            body: m.view.byte_range(body),
            env: Bindings::default(),
            elements: Vec::new(),
            links: Vec::new(),
            launch_calls: walked.launch_calls,
            launches: Vec::new(),
            quote: m.quote,
            made_per_factory: Map::default(),
            by_name: Map::default(),
            walrus: walked.walrus,
        }
    }

    fn src(&self) -> &'t str {
        self.m.src
    }

    /// A module constant's value expression, unless the name is local here.
    fn constant(&self, name: &str) -> Option<Node<'t>> {
        self.names.constant(name)
    }

    fn block(&mut self, block: Node<'t>, cond: Cond) {
        if cond.depth > MAX_NESTING {
            return;
        }
        let cond = Cond {
            depth: cond.depth + 1,
            ..cond
        };
        let mut c = block.walk();
        let stmts: Vec<Item> = self.m.view.children(block, &mut c).collect();
        let names = self.names;
        read_ahead(names, &stmts, |s| {
            work(1);
            self.statement(s, block, cond);
        });
    }

    /// Run branches: each from the bindings before; a name the branches do
    /// not all leave the same is no longer bound (`complete`: one branch
    /// always runs).
    fn branches(&mut self, blocks: &[Node<'t>], cond: Cond, complete: bool) {
        let before = self.env.mark();
        let mut outcomes = Vec::with_capacity(blocks.len());
        for b in blocks {
            self.block(*b, cond);
            outcomes.push(self.env.rewind(before));
        }
        self.env.merge(outcomes, complete);
    }

    fn statement(&mut self, read: Stmt<'t>, block: Node<'t>, cond: Cond) {
        let under = Cond {
            conditional: true,
            ..cond
        };
        // `(x := …)` anywhere in the statement (its blocks too) rebinds x:
        // unbound from here, before what the statement binds itself.
        let range = &read.at.range;
        let first = self.walrus.partition_point(|(at, _)| *at < range.start);
        let last = self.walrus.partition_point(|(at, _)| *at < range.end);
        for i in first..last {
            let name = self.walrus[i].1;
            self.unbind(name);
        }
        if read.expression {
            for e in read.exprs {
                self.expression(e, &read.at, block, cond);
            }
            return;
        }
        // A plain line is an expression statement.
        let Item::Node(s) = read.at.stmt else {
            return;
        };
        match s.kind() {
            "if_statement" => {
                let mut blocks = Vec::new();
                blocks.extend(s.child_by_field_name("consequence"));
                let mut c = s.walk();
                let mut complete = false;
                for alt in s.children_by_field_name("alternative", &mut c) {
                    complete |= alt.kind() == "else_clause";
                    blocks.extend(
                        alt.child_by_field_name("consequence")
                            .or_else(|| alt.child_by_field_name("body")),
                    );
                }
                self.branches(&blocks, under, complete);
            }
            "for_statement" => {
                // The loop's target is rebound each time round.
                if let Some(left) = s.child_by_field_name("left") {
                    self.unbind_targets(left);
                }
                let count = s.child_by_field_name("right").and_then(|r| self.loop_count(r));
                let body: Vec<Node> = s.child_by_field_name("body").into_iter().collect();
                let inner = match count {
                    Some(n) if n >= 1 => Cond {
                        times: cond.times().and_then(|t| t.checked_mul(n)),
                        ..cond
                    },
                    _ => Cond {
                        conditional: true,
                        times: None,
                        ..cond
                    },
                };
                // The names the body binds: the last iteration's, or none.
                self.branches(&body, inner, count != Some(1));
            }
            "while_statement" => {
                let body: Vec<Node> = s.child_by_field_name("body").into_iter().collect();
                self.branches(
                    &body,
                    Cond {
                        conditional: true,
                        times: None,
                        ..cond
                    },
                    false,
                );
            }
            "try_statement" => {
                if let Some(b) = s.child_by_field_name("body") {
                    self.block(b, cond);
                }
                let mut c = s.walk();
                let clauses: Vec<Node> = s.named_children(&mut c).collect();
                for clause in clauses {
                    let body = {
                        let mut cc = clause.walk();
                        clause.named_children(&mut cc).filter(|n| n.kind() == "block").last()
                    };
                    match (clause.kind(), body) {
                        ("finally_clause", Some(b)) => self.block(b, cond),
                        ("except_clause" | "else_clause" | "except_group_clause", Some(b)) => {
                            self.branches(&[b], under, false)
                        }
                        _ => {}
                    }
                }
            }
            "with_statement" => {
                // `with … as x`: x is what the context manager gives.
                let mut c = s.walk();
                let clauses: Vec<Node> = s.named_children(&mut c).filter(|n| n.kind() == "with_clause").collect();
                for clause in clauses {
                    let mut c = clause.walk();
                    let items: Vec<Node> = clause.named_children(&mut c).collect();
                    for alias in items
                        .iter()
                        .filter_map(|i| i.child_by_field_name("value")?.child_by_field_name("alias"))
                    {
                        self.unbind_targets(alias);
                    }
                }
                if let Some(b) = s.child_by_field_name("body") {
                    self.block(b, cond);
                }
            }
            "delete_statement" => {
                let mut c = s.walk();
                let targets: Vec<Node> = s.named_children(&mut c).collect();
                for t in targets {
                    self.unbind_targets(t);
                }
            }
            "decorated_definition" | "function_definition" | "class_definition" => {}
            _ => {}
        }
    }

    /// A literal loop count: `range(N)`, `range(a, b)`, a list or tuple.
    fn loop_count(&self, n: Node<'t>) -> Option<u32> {
        match n.kind() {
            "list" | "tuple" => u32::try_from(n.named_child_count()).ok(),
            "call" if text(n.child_by_field_name("function")?, self.src()) == "enumerate" => {
                let args = n.child_by_field_name("arguments")?;
                (args.named_child_count() == 1)
                    .then(|| self.loop_count(args.named_child(0)?))
                    .flatten()
            }
            "call" if text(n.child_by_field_name("function")?, self.src()) == "range" => {
                let args = n.child_by_field_name("arguments")?;
                let mut c = args.walk();
                let a: Vec<i64> = args
                    .named_children(&mut c)
                    .map(|x| self.int(x))
                    .collect::<Option<Vec<i64>>>()?;
                let n = match a.as_slice() {
                    [n] => *n,
                    [a, b] => b.checked_sub(*a)?,
                    _ => return None,
                };
                u32::try_from(n.max(0)).ok()
            }
            _ => None,
        }
    }

    fn int(&self, n: Node<'t>) -> Option<i64> {
        self.names.int(n)
    }

    fn string(&self, n: Node<'t>) -> Option<String> {
        self.names.string(n)
    }

    /// The element a name or expression stands for.
    fn element(&self, n: Arg<'t>) -> Option<usize> {
        self.element_named(&n.target(self.src())?)
    }

    /// The element a name (`target`) stands for.
    fn element_named(&self, name: &str) -> Option<usize> {
        match self.env.get(name)? {
            Bind::Element(e) => Some(*e),
            _ => None,
        }
    }

    fn expression(&mut self, e: Expr<'t>, at: &At<'t>, block: Node<'t>, cond: Cond) {
        match e {
            Expr::Assign { targets, value } => {
                let bound = value.and_then(|c| self.call(c, at, block, cond));
                for (left, name) in targets {
                    let Some(name) = name else {
                        if let Some(left) = left {
                            self.unbind_targets(left);
                        }
                        continue;
                    };
                    // Rebinding `x` (or `self.x`) drops what `x.…` held.
                    let prefix = format!("{name}.");
                    self.env.remove_prefixed(&prefix);
                    if let Some(Bind::Element(id)) = &bound {
                        let m = &mut self.elements[*id];
                        if m.receiver.is_none() && m.block == block.id() {
                            m.receiver = Some(name.clone());
                        }
                    }
                    match bound.clone() {
                        Some(b) => self.env.insert(name, b),
                        None => self.env.remove(&name),
                    };
                }
            }
            Expr::Call(c) => {
                self.call(c, at, block, cond);
            }
            Expr::Other => {}
        }
    }

    /// Unbind a name and what was bound under it (`x.…`).
    fn unbind(&mut self, name: &str) {
        self.env.remove_prefixed(&format!("{name}."));
        self.env.remove(name);
    }

    /// Unbind what a target binds: a name or attribute path, or each of a
    /// tuple's or list's (`a, self.b = …`, `for a, b in …`, `with … as
    /// (a, b)`, `del a, b`). A subscript (`d[k] = …`) or a name inside one
    /// binds nothing.
    fn unbind_targets(&mut self, t: Node<'t>) {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            if let Some(name) = target(t, self.src()) {
                self.unbind(&name);
            } else if matches!(
                t.kind(),
                "pattern_list"
                    | "tuple_pattern"
                    | "list_pattern"
                    | "list_splat_pattern"
                    | "expression_list"
                    | "tuple"
                    | "list"
                    | "parenthesized_expression"
                    | "as_pattern_target"
            ) {
                let mut c = t.walk();
                stack.extend(t.named_children(&mut c));
            }
        }
    }

    /// Read a call (its effects), and what the value it returns is bound to.
    fn value_bind(&mut self, n: Node<'t>, at: &At<'t>, block: Node<'t>, cond: Cond) -> Option<Bind> {
        let c = Call::read(self.names, n)?;
        self.call(c, at, block, cond)
    }

    /// A call's effects (see `value_bind`), read ahead.
    fn call(&mut self, c: Call<'t>, at: &At<'t>, block: Node<'t>, cond: Cond) -> Option<Bind> {
        let Call {
            span,
            object,
            object_text,
            method,
            argv,
            receiver,
            strs: [first, second],
            key_range,
            written,
        } = c;
        match method {
            "make" if object_text.is_some_and(|o| o.ends_with("ElementFactory")) => {
                let factory = first?;
                Some(Bind::Element(self.make(factory, second, span, at, block, cond)))
            }
            "Pipeline" => Some(Bind::ServiceMaker),
            "add" => {
                // pyservicemaker: pipeline.add("factory", "name", {…}), chainable.
                let o = object?;
                let on_pipeline = self.env.get(object_text.unwrap_or("")) == Some(&Bind::ServiceMaker)
                    || (o.is("call") && self.bind_of(o, at, block, cond) == Some(Bind::ServiceMaker));
                let factory = first;
                if on_pipeline && factory.is_some() {
                    let id = self.make(factory?, second, span, at, block, cond);
                    if let Some(dict) = argv.get(2).and_then(|d| d.node()).filter(|d| d.kind() == "dictionary") {
                        self.dictionary(id, dict, at, cond);
                    }
                }
                on_pipeline.then_some(Bind::ServiceMaker)
            }
            "set_property" => {
                object?;
                let id = self.element_named(receiver.as_deref()?)?;
                let key = first?;
                let written = written?;
                self.set(id, &key, key_range?, written, at, block, cond);
                None
            }
            "get_request_pad" | "request_pad_simple" | "get_static_pad" => {
                object?;
                let id = self.element_named(receiver.as_deref()?)?;
                if method != "get_static_pad" {
                    self.request(id, cond);
                }
                Some(Bind::Pad(id))
            }
            "link" => {
                let o = object?;
                if self.env.get(object_text.unwrap_or("")) == Some(&Bind::ServiceMaker) {
                    self.service_maker_link(&argv, cond);
                    return Some(Bind::ServiceMaker);
                }
                let from = self.bind_of(o, at, block, cond);
                let to = match argv.first() {
                    Some(a) => self.bind_of(*a, at, block, cond),
                    None => None,
                };
                if let (Some(Bind::Element(a) | Bind::Pad(a)), Some(Bind::Element(b) | Bind::Pad(b))) = (from, to) {
                    self.links.push((a, b));
                }
                None
            }
            m if m.ends_with("link_many") => {
                let ids: Vec<Option<usize>> = argv.iter().map(|a| self.element(*a)).collect();
                for w in ids.windows(2) {
                    if let [Some(a), Some(b)] = w {
                        self.links.push((*a, *b));
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// What a name or a call (`decoder.get_static_pad("src")`) stands for.
    /// Calls chained deeper than `MAX_NESTING` are not followed.
    fn bind_of(&mut self, n: Arg<'t>, at: &At<'t>, block: Node<'t>, cond: Cond) -> Option<Bind> {
        let n = match n {
            Arg::Node(n) => n,
            // A name or a dotted name, or a literal.
            _ => return self.env.get(&n.target(self.src())?).cloned(),
        };
        match n.kind() {
            "identifier" | "attribute" => self.env.get(&target(n, self.src())?).cloned(),
            "call" if cond.depth <= MAX_NESTING => {
                let inner = Cond {
                    depth: cond.depth + 1,
                    ..cond
                };
                self.value_bind(n, at, block, inner)
            }
            _ => None,
        }
    }

    /// The descriptions the scope's `Gst.parse_launch("…")` /
    /// `parse_bin_from_description("…")` calls spell out.
    fn find_launches(&mut self) {
        for x in std::mem::take(&mut self.launch_calls) {
            let arg = x.child_by_field_name("arguments").and_then(|a| a.named_child(0));
            if let Some(m) = arg.and_then(|a| python::string(a, self.src(), &|c| self.constant(c))) {
                self.launches.push(m);
            }
        }
    }

    fn make(
        &mut self,
        factory: String,
        name: Option<String>,
        call: Span,
        at: &At<'t>,
        block: Node<'t>,
        cond: Cond,
    ) -> usize {
        // GStreamer names an unnamed element after its factory and how many
        // of that factory were made before it.
        // (A factory's count is found by its name: no copy of it per call.)
        let made = self.made_per_factory.get(factory.as_str()).copied().unwrap_or(0);
        let name = name.unwrap_or_else(|| format!("{factory}{made}"));
        match self.made_per_factory.get_mut(factory.as_str()) {
            Some(n) => *n += 1,
            None => {
                self.made_per_factory.insert(factory.clone(), 1);
            }
        }
        self.elements.push(Made {
            certain: !cond.conditional,
            times: cond.times,
            factory,
            name,
            make: call,
            props: gst::Props::default(),
            block: block.id(),
            anchor: None,
            receiver: None,
            pads: Some(0),
        });
        let id = self.elements.len() - 1;
        self.by_name.insert(self.elements[id].name.clone(), id);
        self.anchor(id, at, block);
        id
    }

    /// Remember the statement as the element's last statement in its own
    /// block.
    fn anchor(&mut self, id: usize, at: &At<'t>, block: Node<'t>) {
        let m = &mut self.elements[id];
        if block.id() != m.block {
            return;
        }
        m.anchor.clone_from(&at.anchor);
    }

    fn request(&mut self, id: usize, cond: Cond) {
        let m = &mut self.elements[id];
        m.pads = match (m.pads, cond.conditional, cond.times) {
            (Some(p), false, t) => p.checked_add(t.unwrap_or(1)),
            _ => None,
        };
    }

    #[allow(clippy::too_many_arguments)]
    fn set(&mut self, id: usize, key: &str, key_range: Span, value: Written, at: &At<'t>, block: Node<'t>, cond: Cond) {
        let certain = self.elements[id].certain;
        let same_place = !cond.conditional || !certain;
        let setting = if same_place {
            self.setting(id, key, key_range, value, at)
        } else {
            // tree-sitter counts rows at each `\n`, as a line number does.
            let row = match at.stmt {
                Item::Node(n) => n.start_position().row,
                Item::Plain(p) => p.row,
            };
            let line = row + 1;
            Setting::unknown((self.file, value.at), format!("set under a condition (line {line})"))
        };
        self.elements[id].props.push(key, setting);
        self.anchor(id, at, block);
    }

    /// A value written in code: known when it is a literal or a module
    /// constant; its site the literal an edit can replace.
    fn setting(&self, id: usize, key: &str, key_range: Span, value: Written, at: &At<'t>) -> Setting {
        let group = self.elements[id].name.clone();
        let site = value.edit.map(|value_span| {
            Site::new(
                self.file,
                group.as_str().into(),
                key.into(),
                key_range,
                value_span,
                at.range.clone(),
            )
        });
        Setting {
            value: value.shown,
            site,
            at: (self.file, value.at).into(),
            layer: Layer::Element,
            derived: None,
        }
    }

    /// pyservicemaker's property dictionary.
    fn dictionary(&mut self, id: usize, dict: Node<'t>, at: &At<'t>, cond: Cond) {
        let mut c = dict.walk();
        let pairs: Vec<Node> = dict.named_children(&mut c).filter(|p| p.kind() == "pair").collect();
        for p in pairs {
            let (Some(k), Some(v)) = (p.child_by_field_name("key"), p.child_by_field_name("value")) else {
                continue;
            };
            let Some(key) = self.string(k) else { continue };
            let mut s = self.setting(id, &key, k.byte_range(), self.names.written(Arg::Node(v)), at);
            if let Some(site) = &mut s.site {
                site.spans.set_line(p.byte_range());
            }
            if cond.conditional && self.elements[id].certain {
                s.value = Value::Unknown("set under a condition".into());
            }
            self.elements[id].props.push(&key, s);
        }
    }

    /// pyservicemaker's `link("a", "b", …)` and `link(("a", "b"), ("", "sink_%u"))`.
    fn service_maker_link(&mut self, argv: &[Arg<'t>], cond: Cond) {
        let by_name = |s: &Self, n: Arg<'t>| {
            let name = s.names.arg_string(n)?;
            s.by_name.get(&name).copied()
        };
        if let Some(tuple) = argv.first().and_then(|a| a.node()).filter(|a| a.kind() == "tuple") {
            let mut c = tuple.walk();
            let ends: Vec<Option<usize>> = tuple
                .named_children(&mut c)
                .map(|n| by_name(self, Arg::Node(n)))
                .collect();
            if let [a, Some(b)] = ends.as_slice() {
                if let Some(a) = a {
                    self.links.push((*a, *b));
                }
                // A link to the mux requests a sink pad, whatever the source.
                if self.elements[*b].factory == "nvstreammux" {
                    self.request(*b, cond);
                }
            }
            return;
        }
        let ids: Vec<Option<usize>> = argv.iter().map(|a| by_name(self, *a)).collect();
        for w in ids.windows(2) {
            if let [Some(a), Some(b)] = w {
                self.links.push((*a, *b));
            }
        }
    }

    /// The pipeline: the elements made for certain, their links, and the
    /// streams when the mux's pad requests and the sources agree.
    fn finish(self, ws: &mut Workspace) -> Pipeline {
        let file = self.file;
        let eol = ws.files[file].doc.line_ending;
        let mut index = vec![None; self.elements.len()];
        let mut found = Vec::new();
        let mut times = Vec::new();
        let mut pads = None;
        let mut muxes = 0;
        for (i, mut m) in self.elements.into_iter().enumerate() {
            if !m.certain {
                continue;
            }
            outside_sets(self.m, file, &self.body, &mut m);
            if m.factory == "nvstreammux" {
                muxes += 1;
                pads = m.pads.filter(|p| *p > 0);
            }
            index[i] = Some(found.len());
            times.push(m.times);
            let home = match (&m.anchor, &m.receiver) {
                (Some((at, indent)), Some(recv)) => Some(Home::Python {
                    file,
                    at: *at,
                    header: m.make.clone(),
                    template: format!(
                        "{indent}{recv}.set_property({q}{{key}}{q}, {{value}}){eol}",
                        q = self.quote
                    ),
                }),
                _ => None,
            };
            found.push(Found {
                factory: Some(m.factory),
                name: m.name,
                props: m.props.into_vec(),
                home,
            });
        }
        let links = self
            .links
            .iter()
            .filter_map(|(a, b)| {
                Some(Link {
                    from: index[*a]?,
                    to: index[*b]?,
                })
            })
            .collect();
        let mut references = Vec::new();
        let elements: Vec<_> = found
            .into_iter()
            .map(|f| gst::element(ws, file, f, &mut references))
            .collect();
        let mut p = gst::assemble(file, elements, links, true, references);
        // Sources made for certain, each as many times as its loops run,
        // must add up to the pads the mux requests.
        let sources: Option<u32> = p
            .elements
            .iter()
            .zip(&times)
            .filter(|(e, _)| matches!(e.role, Role::Source(_)))
            .map(|(_, t)| t.unwrap_or(1))
            .try_fold(0u32, |a, t| a.checked_add(t));
        if muxes == 1 && pads.is_some() && sources == pads {
            for (e, t) in p.elements.iter_mut().zip(&times) {
                if let Role::Source(s) = &mut e.role {
                    s.streams = Some(t.unwrap_or(1));
                }
            }
        }
        p
    }
}

/// Blocks of at least this many statements are read ahead on all threads
/// (`read_ahead`), in runs of `AHEAD_RUN`.
const AHEAD: usize = 4096;
const AHEAD_RUN: usize = 2048;

/// Give `each` the block's statements read (`Stmt::read`), in order. What
/// a statement says about itself (its calls, their arguments' strings and
/// values, its targets) depends only on the tree and on the scope's names,
/// so the statements of a long block are read on all threads, a few runs
/// ahead of `each`, which runs on this thread.
fn read_ahead<'t>(names: &Names<'_, '_, 't>, stmts: &[Item<'t>], each: impl FnMut(Stmt<'t>)) {
    read_ahead_by(names, stmts, AHEAD, AHEAD_RUN, each);
}

/// `read_ahead` of blocks of at least `ahead` statements, in runs of `run`.
fn read_ahead_by<'t>(
    names: &Names<'_, '_, 't>,
    stmts: &[Item<'t>],
    ahead: usize,
    run: usize,
    mut each: impl FnMut(Stmt<'t>),
) {
    if stmts.len() < ahead {
        for s in stmts {
            each(Stmt::read(names, *s));
        }
        return;
    }
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Stmt<'t>>>(2);
        let reader = std::thread::Builder::new().spawn_scoped(scope, move || {
            use rayon::prelude::*;
            for run in stmts.chunks(run.max(1)) {
                let read: Vec<Stmt<'t>> = run.par_iter().map(|s| Stmt::read(names, *s)).collect();
                if tx.send(read).is_err() {
                    break;
                }
            }
        });
        if reader.is_err() {
            // No thread: read them here.
            for s in stmts {
                each(Stmt::read(names, *s));
            }
            return;
        }
        for run in rx {
            for s in run {
                each(s);
            }
        }
    });
}

/// A statement, with what its scope's walk reads of it (see `read_ahead`).
struct Stmt<'t> {
    at: At<'t>,
    /// An expression statement (its expressions in `exprs`).
    expression: bool,
    exprs: Vec<Expr<'t>>,
}

/// The statement a call is read in.
struct At<'t> {
    stmt: Item<'t>,
    range: Span,
    /// Where a statement after it goes and the indentation of its line:
    /// `None` when it is not on a line of its own or the rest of the line
    /// is not blank or a comment (read only for a statement with a call).
    anchor: Option<(usize, String)>,
}

/// An expression of an expression statement, read.
enum Expr<'t> {
    /// `x = app.x = make(…)`: a chain of targets, each with its name
    /// (`target`), bound to the one value, in order; the value's call.
    Assign {
        targets: Vec<(Option<Node<'t>>, Option<String>)>,
        value: Option<Call<'t>>,
    },
    Call(Call<'t>),
    Other,
}

/// A call's object or argument: a node of a tree, or a plain line's
/// (`python_plain`).
#[derive(Debug, Clone, Copy)]
enum Arg<'t> {
    Node(Node<'t>),
    Plain(&'t python_plain::Arg),
    /// A plain line's call's object (a dotted name).
    Object(&'t Plain),
}

impl<'t> Arg<'t> {
    fn span(self) -> Span {
        match self {
            Arg::Node(n) => n.byte_range(),
            Arg::Plain(p) => p.span.clone(),
            Arg::Object(p) => p.object(),
        }
    }

    fn node(self) -> Option<Node<'t>> {
        match self {
            Arg::Node(n) => Some(n),
            _ => None,
        }
    }

    /// Whether it is a node of this kind.
    fn is(self, kind: &str) -> bool {
        self.node().is_some_and(|n| n.kind() == kind)
    }

    /// `target` of it.
    fn target(self, src: &str) -> Option<String> {
        match self {
            Arg::Node(n) => target(n, src),
            Arg::Plain(p) => (p.kind == ArgKind::Name).then(|| src[p.span.clone()].to_string()),
            Arg::Object(p) => Some(src[p.object()].to_string()),
        }
    }
}

/// A call, read: `object.method(argv…)` or `method(argv…)`.
struct Call<'t> {
    span: Span,
    object: Option<Arg<'t>>,
    object_text: Option<&'t str>,
    method: &'t str,
    argv: Vec<Arg<'t>>,
    /// The object as a name (`target`): what `element_named` looks up.
    receiver: Option<String>,
    /// The first two arguments as strings (`Names::string`), for the
    /// methods that read them (`make`, `add`; `set_property`'s key).
    strs: [Option<String>; 2],
    /// `set_property`'s key's bytes and what its value says.
    key_range: Option<Span>,
    written: Option<Written>,
}

impl<'t> Stmt<'t> {
    fn read(names: &Names<'_, '_, 't>, s: Item<'t>) -> Self {
        let s = match s {
            Item::Node(n) => n,
            Item::Plain(p) => return Self::plain(names, p),
        };
        let expression = s.kind_id() == python::kinds().expression_statement;
        let exprs: Vec<Expr<'t>> = if expression {
            let mut c = s.walk();
            let exprs: Vec<Node<'t>> = s.named_children(&mut c).collect();
            exprs.into_iter().map(|e| Expr::read(names, e)).collect()
        } else {
            Vec::new()
        };
        let calls = exprs
            .iter()
            .any(|e| matches!(e, Expr::Call(_) | Expr::Assign { value: Some(_), .. }));
        let line_start = s.start_byte().saturating_sub(s.start_position().column);
        Stmt {
            at: At {
                stmt: Item::Node(s),
                range: s.byte_range(),
                anchor: calls
                    .then(|| line_anchor(line_start, s.byte_range(), names.src()))
                    .flatten(),
            },
            expression,
            exprs,
        }
    }

    /// A plain line (`python_plain`): what `read` reads of its tree.
    fn plain(names: &Names<'_, '_, 't>, p: &'t Plain) -> Self {
        let call = Call::plain(names, p);
        let expr = match &p.target {
            Some(t) => Expr::Assign {
                targets: vec![(None, Some(names.src()[t.clone()].to_string()))],
                value: Some(call),
            },
            None => Expr::Call(call),
        };
        Stmt {
            at: At {
                stmt: Item::Plain(p),
                range: p.span.clone(),
                anchor: line_anchor(p.line, p.span.clone(), names.src()),
            },
            expression: true,
            exprs: vec![expr],
        }
    }
}

impl<'t> Expr<'t> {
    fn read(names: &Names<'_, '_, 't>, e: Node<'t>) -> Self {
        let k = python::kinds();
        match e.kind_id() {
            kind if kind == k.assignment => {
                let mut targets = Vec::new();
                let mut value = e;
                while value.kind_id() == k.assignment {
                    let (Some(left), Some(right)) = (
                        value.child_by_field_id(k.fields.left),
                        value.child_by_field_id(k.fields.right),
                    ) else {
                        return Expr::Other;
                    };
                    targets.push((Some(left), target(left, names.src())));
                    value = right;
                }
                Expr::Assign {
                    targets,
                    value: Call::read(names, value),
                }
            }
            kind if kind == k.call => Call::read(names, e).map_or(Expr::Other, Expr::Call),
            _ => Expr::Other,
        }
    }
}

impl<'t> Call<'t> {
    /// `None`: not a call of a name or an attribute.
    fn read(names: &Names<'_, '_, 't>, n: Node<'t>) -> Option<Self> {
        let k = python::kinds();
        if n.kind_id() != k.call {
            return None;
        }
        let src = names.src();
        let f = n.child_by_field_id(k.fields.function)?;
        let args = n.child_by_field_id(k.fields.arguments)?;
        let mut c = args.walk();
        let argv: Vec<Arg> = args.named_children(&mut c).map(Arg::Node).collect();
        let (object, method) = match f.kind_id() {
            kind if kind == k.attribute => (
                f.child_by_field_id(k.fields.object),
                text(f.child_by_field_id(k.fields.attribute)?, src),
            ),
            kind if kind == k.identifier => (None, text(f, src)),
            _ => return None,
        };
        Some(Self::new(names, n.byte_range(), object.map(Arg::Node), method, argv))
    }

    /// A plain line's call (`python_plain`).
    fn plain(names: &Names<'_, '_, 't>, p: &'t Plain) -> Self {
        let src = names.src();
        let argv = p.args.iter().map(Arg::Plain).collect();
        Self::new(names, p.call.clone(), Some(Arg::Object(p)), &src[p.method()], argv)
    }

    fn new(
        names: &Names<'_, '_, 't>,
        span: Span,
        object: Option<Arg<'t>>,
        method: &'t str,
        argv: Vec<Arg<'t>>,
    ) -> Self {
        let src = names.src();
        let string = |i: usize| argv.get(i).and_then(|a| names.arg_string(*a));
        let (strs, key_range, written) = match method {
            "make" | "add" => ([string(0), string(1)], None, None),
            "set_property" => (
                [string(0), None],
                argv.first().map(|k| k.span()),
                argv.get(1).map(|v| names.written(*v)),
            ),
            _ => ([None, None], None, None),
        };
        Call {
            span,
            object,
            object_text: object.map(|o| &src[o.span()]),
            method,
            receiver: object.and_then(|o| o.target(src)),
            argv,
            strs,
            key_range,
            written,
        }
    }
}

/// Where a statement after `stmt` goes (the start of the next line) and
/// its line's indentation; `None` when `stmt` is not on a line of its own
/// or the rest of its line is not blank or a comment.
fn line_anchor(line_start: usize, stmt: Span, src: &str) -> Option<(usize, String)> {
    // The line's start comes from the statement's column (tree-sitter
    // counts it in bytes): searching back would cost a whole line per
    // statement on a long line of `a; b; …`.
    let indent = src.get(line_start..stmt.start).unwrap_or("x");
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        // Not on a line of its own (`a = 1; b = 2`).
        return None;
    }
    // The rest of the line must be blank or a comment; the scan stops
    // at the first other character.
    let rest = &src[stmt.end..];
    let first = rest.find(|c: char| c != ' ' && c != '\t' && c != '\r');
    match first.map(|i| (i, rest.as_bytes()[i])) {
        Some((i, b'\n')) => Some(i),
        Some((i, b'#')) => rest[i..].find('\n').map(|j| i + j),
        _ => None,
    }
    .map(|i| (stmt.end + i + 1, indent.to_string()))
}

/// A `…parse_launch(…)` or `…parse_bin_from_description(…)` call.
fn is_launch_call(x: Node, src: &str) -> bool {
    if x.kind_id() != python::kinds().call {
        return false;
    }
    let name = x
        .child_by_field_id(python::kinds().fields.function)
        .map(|f| text(f, src))
        .unwrap_or("");
    name.ends_with("parse_launch") || name.ends_with("parse_bin_from_description")
}

/// What an assignment target or a receiver names, as the bindings key it:
/// a name (`mux`) or an attribute path of names (`self.mux`, `app.sink`),
/// without spaces; `None` for anything else (a subscript, a call).
fn target(n: Node, src: &str) -> Option<String> {
    let k = python::kinds();
    match n.kind_id() {
        kind if kind == k.identifier => Some(text(n, src).to_string()),
        kind if kind == k.attribute => {
            let object = target(n.child_by_field_id(k.fields.object)?, src)?;
            let attr = n.child_by_field_id(k.fields.attribute)?;
            Some(format!("{object}.{}", text(attr, src)))
        }
        _ => None,
    }
}

/// `<obj>.<attr>.set_property(<key>, …)`: `attr` and the key when it is a
/// plain string literal.
fn attribute_set_property<'t>(n: Node<'t>, src: &'t str) -> Option<(&'t str, Option<String>)> {
    let k = python::kinds();
    if n.kind_id() != k.call {
        return None;
    }
    let f = n
        .child_by_field_id(k.fields.function)
        .filter(|f| f.kind_id() == k.attribute)?;
    if text(f.child_by_field_id(k.fields.attribute)?, src) != "set_property" {
        return None;
    }
    let receiver = f
        .child_by_field_id(k.fields.object)
        .filter(|o| o.kind_id() == k.attribute)?;
    let attr = text(receiver.child_by_field_id(k.fields.attribute)?, src);
    let key = n
        .child_by_field_id(k.fields.arguments)
        .and_then(|a| a.named_child(0))
        .and_then(|k| python::string(k, src, &|_| None))
        .filter(|m| m.unknown.is_empty())
        .map(|m| m.text);
    Some((attr, key))
}

/// An element bound to an attribute (`self.sink`) can be set from another
/// method, which this scope does not read: each property such a call sets
/// is unknown (DS603 must not claim `sync` is unset). A call whose key is
/// not a literal could set anything: the element's unset properties are
/// not knowable then, which the bindings cannot say, so the element is
/// left as read.
fn outside_sets(m: &Module, file: FileId, body: &Span, made: &mut Made) {
    let Some(attr) = made
        .receiver
        .as_deref()
        .and_then(|r| r.rsplit_once('.'))
        .map(|(_, a)| a)
    else {
        return;
    };
    for (key, at, row) in m.attribute_sets.get(attr).into_iter().flatten() {
        work(1);
        let Some(key) = key.as_deref().filter(|_| !body.contains(at)) else {
            continue;
        };
        let line = row + 1;
        made.props.push(
            key,
            Setting {
                value: Value::Unknown(format!("set in another method (line {line})")),
                site: None,
                at: (file, *at..*at).into(),
                layer: Layer::Element,
                derived: None,
            },
        );
    }
}

/// The bytes of a literal an edit may replace: a number as written, a
/// plain string's contents (no prefix, escape or interpolation).
fn editable(n: Node, src: &str) -> Option<Span> {
    match n.kind() {
        "integer" | "float" | "true" | "false" | "unary_operator" => Some(n.byte_range()),
        "string" => {
            let start = n.child(0)?;
            let end = n.child(n.child_count().checked_sub(1)?)?;
            let prefix = text(start, src).trim_end_matches(['"', '\'']);
            let mut c = n.walk();
            let plain = n.named_children(&mut c).all(|p| {
                matches!(p.kind(), "string_start" | "string_end")
                    || (p.kind() == "string_content" && p.named_child_count() == 0)
            });
            (prefix.is_empty() && plain).then(|| start.end_byte()..end.start_byte())
        }
        _ => None,
    }
}

/// An expression for a message, cut short.
pub(crate) fn short(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module walk does not go into a string `may_hold_names` says
    /// holds none: no such string holds a name or an interpolation, in a
    /// broken module too (prefixes, quotes, braces and escapes generated).
    #[test]
    fn plain_strings_hold_no_names() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let mut runner = TestRunner::new(Config {
            cases: 2000,
            ..Config::default()
        });
        let prefix = prop::sample::select(vec![
            "", "u", "r", "b", "f", "F", "rb", "fr", "Rf", "t", "T", "ur", "bu",
        ]);
        let quote = prop::sample::select(vec!["\"", "'", "\"\"\"", "'''"]);
        let body = prop::collection::vec(
            prop::sample::select(vec![
                "a", "{x}", "{", "}", "{{", "{f'{y}'}", "\\", "\\{z}", "'", "\"", "\n",
            ]),
            0..6,
        );
        let plain = std::cell::Cell::new(0);
        runner
            .run(&(prefix, quote, body), |(prefix, quote, body)| {
                let src = format!("s = {prefix}{quote}{}{quote} + 'x'\n", body.concat());
                let Some(tree) = python::parse_tree(&src) else {
                    return Ok(());
                };
                let mut c = tree.walk();
                let mut strings = Vec::new();
                let mut stack = vec![tree.root_node()];
                while let Some(n) = stack.pop() {
                    if n.kind() == "string" {
                        strings.push(n);
                    }
                    stack.extend(n.children(&mut c));
                }
                for n in strings.into_iter().filter(|n| !may_hold_names(*n, &src)) {
                    plain.set(plain.get() + 1);
                    let mut inside = vec![n];
                    while let Some(d) = inside.pop() {
                        prop_assert!(
                            d.id() == n.id()
                                || !d.is_named()
                                || matches!(
                                    d.kind(),
                                    "string_start"
                                        | "string_content"
                                        | "string_end"
                                        | "escape_sequence"
                                        | "escape_interpolation"
                                        // A backslash before a line break
                                        // in a broken one-quote string.
                                        | "line_continuation"
                                ),
                            "{} in {:?}: {}",
                            d.kind(),
                            src,
                            n.to_sexp()
                        );
                        inside.extend(d.children(&mut c));
                    }
                }
                Ok(())
            })
            .unwrap();
        assert!(plain.get() > 500, "{}", plain.get());
    }

    /// What a statement read says, written out.
    fn summary(s: &Stmt) -> String {
        let call = |c: &Call| {
            format!(
                "{:?} {:?} {} {:?} {:?} {:?} {:?} {}",
                c.span,
                c.object_text,
                c.method,
                c.argv.len(),
                c.receiver,
                c.strs,
                c.key_range,
                c.written
                    .as_ref()
                    .map(|w| format!("{:?} {:?} {:?}", w.shown, w.edit, w.at))
                    .unwrap_or_default(),
            )
        };
        let exprs: Vec<String> = s
            .exprs
            .iter()
            .map(|e| match e {
                Expr::Assign { targets, value } => format!(
                    "assign {:?} {:?}",
                    // A target's node matters only when it is no name.
                    targets
                        .iter()
                        .map(|(n, t)| t.clone().ok_or(n.map(|n| n.byte_range())))
                        .collect::<Vec<_>>(),
                    value.as_ref().map(call)
                ),
                Expr::Call(c) => format!("call {}", call(c)),
                Expr::Other => "other".into(),
            })
            .collect();
        let row = match s.at.stmt {
            Item::Node(n) => n.start_position().row,
            Item::Plain(p) => p.row,
        };
        format!("{:?} {row} {} {:?} {exprs:?}", s.at.range, s.expression, s.at.anchor)
    }

    /// A long block read ahead on other threads, in runs, gives each
    /// statement what reading it here gives, in order.
    #[test]
    fn statements_read_ahead_are_read_as_here_in_order() {
        let line = |i: usize| {
            [
                format!("    q{i} = Gst.ElementFactory.make(\"queue\", \"queue{i}\")\n"),
                format!("    q{i}.set_property(\"max-size-buffers\", N)  # c\n"),
                format!("    a{i} = app.x = Gst.ElementFactory.make('nvstreammux', None); pipeline.add(a{i})\n"),
                format!("    if q{i}:\n        q{i}.link(a{i})\n"),
                format!("    m.set_property('width', {i}.5)\n"),
            ]
            .concat()
        };
        let body: String = (0..40).map(line).collect();
        let src = format!("N = 4\ndef main():\n{body}");
        let parsed = python::parse_by(&src, usize::MAX).unwrap();
        let view = parsed.view().unwrap();
        let (module, scopes) = Module::new(&view, &src);
        let (body, function) = scopes[1];
        let (names, _) = Names::new(&module, body, function);
        let mut c = body.walk();
        let stmts: Vec<Item> = view.children(body, &mut c).collect();
        // Seven statements for each `i`: the comment is one.
        assert_eq!(stmts.len(), 280);
        let here: Vec<String> = stmts.iter().map(|s| summary(&Stmt::read(&names, *s))).collect();
        for (ahead, run) in [(1, 7), (1, 1), (280, 1000), (281, 1)] {
            let mut read = Vec::new();
            read_ahead_by(&names, &stmts, ahead, run, |s| read.push(summary(&s)));
            assert_eq!(read, here, "{ahead} {run}");
        }
        // What the summaries hold: a constant's value, an edit, an anchor.
        assert!(
            here[1].contains("max-size-buffers") && here[1].contains(r#"Known(\"4\")"#),
            "{}",
            here[1]
        );
        assert!(
            here[0].contains("Some((") && here[3].contains("true None ["),
            "{}\n{}",
            here[0],
            here[3]
        );
    }

    /// The statements of `main`'s body in `src`, read (`summary`), the
    /// module parsed in pieces of `piece` bytes, and how many are plain
    /// lines.
    fn body_read(src: &str, piece: usize) -> (Vec<String>, usize) {
        let parsed = python::parse_by(src, piece).unwrap();
        let view = parsed.view().unwrap();
        let (module, scopes) = Module::new(&view, src);
        let (body, function) = scopes[1];
        let (names, _) = Names::new(&module, body, function);
        let mut c = body.walk();
        let stmts: Vec<Item> = view.children(body, &mut c).collect();
        let plain = stmts.iter().filter(|s| matches!(s, Item::Plain(_))).count();
        let read = stmts.iter().map(|s| summary(&Stmt::read(&names, *s))).collect();
        (read, plain)
    }

    /// A plain line (`python_plain`) reads as its tree reads: the call,
    /// its strings, values, edits and anchor, with module and local
    /// constants, names used once or twice, and lines that are not plain
    /// between.
    #[test]
    fn plain_lines_read_as_their_trees() {
        let body = "    Gst.init(None)\n\
                    \x20   q = Gst.ElementFactory.make(\"queue\", 'q0')\n\
                    \x20   q.set_property(\"leaky\", 2)\n\
                    \x20   q.set_property( 'max-size-buffers' , N )  \n\
                    \x20   q.set_property('silent', True)\n\
                    \x20   q.set_property('flush-on-eos', False)\n\
                    \x20   q.set_property(\"name\", \"\")\n\
                    \x20   q.set_property(K, W)\n\
                    \x20   q.set_property(\"width\", LOCAL)\n\
                    \x20   LOCAL = 3\n\
                    \x20   q.set_property(\"width\", ONCE)\n\
                    \x20   m = Gst.ElementFactory.make(F, None)\n\
                    \x20   m.set_property(\"batch-size\", 0)\n\
                    \x20   pipeline = Gst.Pipeline()\n\
                    \x20   pipeline.add(q)\n\
                    \x20   pipeline.add(F)\n\
                    \x20   q.link(m)\n\
                    \x20   m.get_request_pad(\"sink_0\")\n\
                    \x20   x.y.z.link_many(q, m, 1)\n\
                    \x20   sm = service.Pipeline(\"p\")\n\
                    \x20   sm.add(\"nvstreammux\", \"mux\")\n\
                    \x20   sm.link(\"mux\", T)\n\
                    \x20   q.set_property(\"a\", 1) # not plain\n\
                    \x20   q.set_property(\"b\", 1.5)\n\
                    \x20   q = Gst.ElementFactory.make(\"queue\", \"q1\")\r\n\
                    \x20   q.set_property(\"c\", 1)\n";
        let src = format!(
            "N = 4\nK = \"k\"\nW = 1920\nONCE = 7\nF = \"nvstreammux\"\nT = \"x\"\ndef main():\n    pass\n{body}    q.set_property(\"d\", 1)\nmain()\n"
        );
        let (whole, none) = body_read(&src, usize::MAX);
        let (pieces, plain) = body_read(&src, 1);
        assert_eq!(none, 0);
        assert_eq!(plain, 22, "{pieces:#?}");
        assert_eq!(whole.len(), pieces.len());
        for (w, p) in whole.iter().zip(&pieces) {
            assert_eq!(w, p);
        }
        // What the summaries hold: a constant's value and edit, a
        // string's, a name's.
        assert!(
            pieces[4].contains(r#"Known(\"4\")"#) && pieces[4].contains("Some(4..5)"),
            "{}",
            pieces[4]
        );
        assert!(pieces[7].contains(r#"Known(\"\")"#), "{}", pieces[7]);
    }
}
