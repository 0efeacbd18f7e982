//! The names a Python scope has bound so far (`mux`, `self.sink`), with a
//! journal of what each change replaced, so that the branches of an `if`
//! are each read from the bindings before it and merged without copying
//! every binding per branch (a function of many elements and many `if`s
//! was quadratic). Keys are ordered: the bindings under `x.` are a range,
//! not a scan.

use std::collections::{BTreeMap, HashMap};

/// One scope's bindings of `B`.
#[derive(Debug)]
pub struct Bindings<B> {
    map: BTreeMap<String, B>,
    /// Each change: the key and what it held before.
    journal: Vec<(String, Option<B>)>,
    /// Keys looked at by changes (a measure of the work, for the tests).
    pub steps: usize,
}

impl<B> Default for Bindings<B> {
    fn default() -> Self {
        Bindings {
            map: BTreeMap::new(),
            journal: Vec::new(),
            steps: 0,
        }
    }
}

/// Where the journal stood: the bindings as they were then.
#[derive(Debug, Clone, Copy)]
pub struct Mark(usize);

impl<B: Clone + PartialEq> Bindings<B> {
    pub fn get(&self, key: &str) -> Option<&B> {
        self.map.get(key)
    }

    pub fn insert(&mut self, key: String, value: B) {
        self.steps += 1;
        let old = self.map.insert(key.clone(), value);
        self.journal.push((key, old));
    }

    pub fn remove(&mut self, key: &str) {
        self.steps += 1;
        if let Some(old) = self.map.remove(key) {
            self.journal.push((key.to_string(), Some(old)));
        }
    }

    /// Unbind every key that starts with `prefix` (`x.` when `x` is bound
    /// again).
    pub fn remove_prefixed(&mut self, prefix: &str) {
        let keys: Vec<String> = self
            .map
            .range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(prefix))
            .cloned()
            .collect();
        for k in keys {
            self.remove(&k);
        }
    }

    pub fn mark(&self) -> Mark {
        Mark(self.journal.len())
    }

    /// What a branch changed since `mark` (each key with its value now);
    /// the bindings are as they were at `mark` again.
    pub fn rewind(&mut self, mark: Mark) -> Outcome<B> {
        let mut now = HashMap::new();
        while self.journal.len() > mark.0 {
            let Some((key, old)) = self.journal.pop() else { break };
            self.steps += 1;
            if !now.contains_key(&key) {
                now.insert(key.clone(), self.map.get(&key).cloned());
            }
            match old {
                Some(v) => self.map.insert(key, v),
                None => self.map.remove(&key),
            };
        }
        Outcome(now)
    }

    /// After branches (each read from the bindings as they are now, then
    /// rewound): a key stays bound only where every branch, and not
    /// running any when `complete` is false, leaves it bound the same.
    /// No branch that always runs leaves nothing bound.
    pub fn merge(&mut self, outcomes: Vec<Outcome<B>>, complete: bool) {
        if outcomes.is_empty() && complete {
            let keys: Vec<String> = self.map.keys().cloned().collect();
            for k in keys {
                self.remove(&k);
            }
            return;
        }
        let mut keys: Vec<&String> = outcomes.iter().flat_map(|o| o.0.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            self.steps += outcomes.len();
            let before = self.map.get(k.as_str()).cloned();
            let mut values = outcomes
                .iter()
                .map(|o| o.0.get(k).unwrap_or(&before))
                .chain((!complete).then_some(&before));
            let merged = match values.next().cloned().flatten() {
                Some(v) if values.all(|x| x.as_ref() == Some(&v)) => Some(v),
                _ => None,
            };
            match merged {
                Some(v) if before.as_ref() != Some(&v) => self.insert(k.clone(), v),
                Some(_) => {}
                None => self.remove(k),
            }
        }
    }
}

/// The keys a branch changed, each with the value it left (`None`: unbound).
#[derive(Debug)]
pub struct Outcome<B>(HashMap<String, Option<B>>);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(&'static str, u8),
        Remove(&'static str),
        RemovePrefixed(&'static str),
        /// Branches, and whether one always runs.
        Branches(Vec<Vec<Op>>, bool),
    }

    const KEYS: &[&str] = &["a", "a.b", "a.c", "ab", "b", "b.a"];

    fn op() -> impl Strategy<Value = Op> {
        let key = proptest::sample::select(KEYS);
        let leaf = prop_oneof![
            (key.clone(), 0u8..3).prop_map(|(k, v)| Op::Insert(k, v)),
            key.clone().prop_map(Op::Remove),
            proptest::sample::select(&["a.", "b."][..]).prop_map(Op::RemovePrefixed),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            (
                proptest::collection::vec(proptest::collection::vec(inner, 0..5), 0..4),
                any::<bool>(),
            )
                .prop_map(|(b, c)| Op::Branches(b, c))
        })
    }

    /// The bindings as they were read before the journal: every branch
    /// from a copy, merged by comparing whole maps.
    fn model(env: &mut HashMap<String, u8>, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Insert(k, v) => {
                    env.insert(k.to_string(), *v);
                }
                Op::Remove(k) => {
                    env.remove(*k);
                }
                Op::RemovePrefixed(p) => env.retain(|k, _| !k.starts_with(p)),
                Op::Branches(blocks, complete) => {
                    let before = env.clone();
                    let mut after = Vec::new();
                    for b in blocks {
                        *env = before.clone();
                        model(env, b);
                        after.push(std::mem::take(env));
                    }
                    if !complete {
                        after.push(before.clone());
                    }
                    let mut merged = HashMap::new();
                    if let Some(first) = after.first() {
                        for (k, v) in first {
                            if after.iter().all(|e| e.get(k) == Some(v)) {
                                merged.insert(k.clone(), *v);
                            }
                        }
                    }
                    *env = merged;
                }
            }
        }
    }

    fn run(env: &mut Bindings<u8>, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Insert(k, v) => env.insert(k.to_string(), *v),
                Op::Remove(k) => env.remove(k),
                Op::RemovePrefixed(p) => env.remove_prefixed(p),
                Op::Branches(blocks, complete) => {
                    let before = env.mark();
                    let mut outcomes = Vec::new();
                    for b in blocks {
                        run(env, b);
                        outcomes.push(env.rewind(before));
                    }
                    env.merge(outcomes, *complete);
                }
            }
        }
    }

    proptest! {
        /// The journal answers as copying the bindings per branch did.
        #[test]
        fn journal_merges_as_copies_did(ops in proptest::collection::vec(op(), 0..12)) {
            let mut expected = HashMap::new();
            model(&mut expected, &ops);
            let mut env = Bindings::default();
            run(&mut env, &ops);
            let got: HashMap<String, u8> = env.map.iter().map(|(k, v)| (k.clone(), *v)).collect();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn prefixed_keys_are_a_range() {
        let mut env = Bindings::default();
        for k in ["a", "a.b", "a.b.c", "ab", "a-", "b.a"] {
            env.insert(k.to_string(), 1);
        }
        env.remove_prefixed("a.");
        let keys: Vec<&String> = env.map.keys().collect();
        assert_eq!(keys, ["a", "a-", "ab", "b.a"]);
    }
}
