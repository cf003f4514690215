//! A per-class table (class attributes, class bases) held module by module.
//!
//! Every frozen import keeps its own table, and most of a table is the classes of the modules it
//! imported. Keyed by class alone, the first class a module defined copied every entry it had
//! inherited: on transformers that was about 60 MB of copies held by the import cache. Keyed by the
//! class's module first, a write copies only the outer table (one entry per module) and the writing
//! module's own classes; every other module's part stays shared.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use crate::model::ClassId;
use crate::source::FileId;

type Part<V> = Arc<HashMap<u32, Arc<V>>>;

#[derive(Debug)]
pub(super) struct ClassTable<V>(Arc<HashMap<FileId, Part<V>>>);

impl<V> Clone for ClassTable<V> {
    fn clone(&self) -> Self {
        ClassTable(Arc::clone(&self.0))
    }
}

impl<V> Default for ClassTable<V> {
    fn default() -> Self {
        ClassTable(Arc::default())
    }
}

impl<V> ClassTable<V> {
    pub fn get(&self, id: &ClassId) -> Option<&Arc<V>> {
        self.0.get(&id.file)?.get(&id.index)
    }

    pub fn insert(&mut self, id: ClassId, value: Arc<V>) {
        self.part_mut(id.file).insert(id.index, value);
    }

    /// The class's entry, created empty if it has none.
    pub fn entry(&mut self, id: ClassId) -> &mut Arc<V>
    where
        V: Default,
    {
        self.part_mut(id.file).entry(id.index).or_default()
    }

    fn part_mut(&mut self, file: FileId) -> &mut HashMap<u32, Arc<V>> {
        Arc::make_mut(Arc::make_mut(&mut self.0).entry(file).or_default())
    }

    /// Adds the classes of `from` that this table lacks. A module's part both hold, differently, is
    /// merged class by class; [`merge_missing`] then adds the modules this table lacks, sharing
    /// their parts (or the whole table, when this one holds nothing else).
    pub fn merge_missing(&mut self, from: &ClassTable<V>) {
        if Arc::ptr_eq(&self.0, &from.0) {
            return;
        }
        let lacking: Vec<(FileId, &Part<V>)> = from
            .0
            .iter()
            .filter(|(file, theirs)| {
                self.0.get(file).is_some_and(|mine| {
                    !Arc::ptr_eq(mine, theirs) && theirs.keys().any(|k| !mine.contains_key(k))
                })
            })
            .map(|(file, theirs)| (*file, theirs))
            .collect();
        for (file, theirs) in lacking {
            let mine = self.part_mut(file);
            for (k, v) in theirs.iter() {
                mine.entry(*k).or_insert_with(|| Arc::clone(v));
            }
        }
        merge_missing(&mut self.0, &from.0);
    }
}

/// Adds the entries of `from` that `into` lacks, sharing the whole table when `into` has nothing
/// else: it is empty, or every entry it has is `from`'s own (a module imported after the modules it
/// imports itself, the usual order).
pub(super) fn merge_missing<K: Copy + Eq + std::hash::Hash, V>(
    into: &mut Arc<HashMap<K, Arc<V>>>,
    from: &Arc<HashMap<K, Arc<V>>>,
) {
    if Arc::ptr_eq(into, from) {
        return;
    }
    if into.len() <= from.len()
        && into
            .iter()
            .all(|(k, v)| from.get(k).is_some_and(|w| Arc::ptr_eq(v, w)))
    {
        *into = Arc::clone(from);
        return;
    }
    if from.keys().all(|k| into.contains_key(k)) {
        return;
    }
    let into = Arc::make_mut(into);
    for (k, v) in from.iter() {
        into.entry(*k).or_insert_with(|| Arc::clone(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(file: u32, index: u32) -> ClassId {
        ClassId {
            file: FileId(file),
            index,
        }
    }

    #[test]
    fn a_write_shares_the_other_modules_parts() {
        let mut imported: ClassTable<u8> = ClassTable::default();
        imported.insert(class(1, 0), Arc::new(1));
        imported.insert(class(2, 0), Arc::new(2));
        let mut here = ClassTable::default();
        here.merge_missing(&imported);
        assert!(Arc::ptr_eq(&here.0, &imported.0));
        here.insert(class(3, 0), Arc::new(3));
        assert!(Arc::ptr_eq(&here.0[&FileId(1)], &imported.0[&FileId(1)]));
        assert_eq!(imported.get(&class(3, 0)), None);
        assert_eq!(here.get(&class(3, 0)).map(|v| **v), Some(3));
    }

    #[test]
    fn merging_keeps_what_this_table_has_and_adds_what_it_lacks() {
        let mut a: ClassTable<u8> = ClassTable::default();
        a.insert(class(1, 0), Arc::new(10));
        let mut b: ClassTable<u8> = ClassTable::default();
        b.insert(class(1, 0), Arc::new(20));
        b.insert(class(1, 1), Arc::new(21));
        b.insert(class(2, 0), Arc::new(22));
        a.merge_missing(&b);
        assert_eq!(a.get(&class(1, 0)).map(|v| **v), Some(10));
        assert_eq!(a.get(&class(1, 1)).map(|v| **v), Some(21));
        assert_eq!(a.get(&class(2, 0)).map(|v| **v), Some(22));
        *Arc::make_mut(a.entry(class(4, 2))) = 7;
        assert_eq!(a.get(&class(4, 2)).map(|v| **v), Some(7));
    }
}
