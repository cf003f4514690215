//! The program's shared state: every module's globals, the objects, the class attributes and the
//! classes' bases. Code writes it only through [`World`]'s methods, and each of them that writes
//! notes the write in the world's own log, which the memo reads (see `memo`): no write of shared
//! state can forget to tell the memo, since nothing outside this file reaches the tables to write.
//!
//! It has three shapes, one type each:
//! - [`World`], the running interpreter's;
//! - [`Saved`], what a child process or an entry point restores afterwards (taken with
//!   [`World::save`]): globals, objects and class attributes;
//! - [`FrozenWorld`], what a module's import leaves for the import cache: a [`Saved`] and the
//!   bases of the classes it defined.
//!
//! The classes' bases are not in [`Saved`]: restoring a world keeps the bases written since it
//! was saved. A class's bases are written only by its `class` statement, keyed by the class (a
//! definition of the program, not a value), and a class is read only where its statement ran in
//! the running world: a child or an entry point that ran it again wrote what the restored world's
//! run wrote, or, for a class defined again under other conditions, what a later run writes over.
//! Keeping them keeps the lineages walked from them (`Interp::classes_of`) across restores.

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use super::class_table::merge_missing;
use super::class_table::ClassTable;
use super::heap::Heap;
use super::value::{Name, ObjId, Value};
use super::Object;
use crate::model::ClassId;
use crate::source::FileId;

/// Each module's globals: shared until written, so saved worlds copy them cheaply.
pub(super) type Globals = HashMap<FileId, Arc<HashMap<Name, Value>>>;

/// The running interpreter's shared state, and the log of its writes the memo reads.
pub(super) struct World {
    /// What a restore replaces.
    saved: Saved,
    /// Kept across restores (see the module's documentation).
    class_bases: ClassTable<Vec<Value>>,
    /// Each class and its bases in lookup order, as `Interp::classes_of` walks them; cleared on
    /// every write of `class_bases`.
    lineages: RefCell<HashMap<ClassId, Rc<[ClassId]>>>,
    log: WriteLog,
}

/// What a child process or an entry point restores when it ends (see [`World::save`]).
#[derive(Clone, Debug)]
pub(super) struct Saved {
    /// Each imported module's globals (present while it is being imported, too), in this process.
    globals: Arc<Globals>,
    heap: Heap,
    class_attrs: ClassTable<HashMap<Name, Value>>,
}

/// What a module's import leaves, kept by the import cache (see `frozen`).
#[derive(Debug)]
pub(super) struct FrozenWorld {
    saved: Saved,
    class_bases: ClassTable<Vec<Value>>,
}

/// What was written since the running entry point started, for the memo (see `memo`).
#[derive(Default)]
struct WriteLog {
    /// Since the running entry point started: a global, a class or an object it did not allocate
    /// was written. Nothing is recorded or replayed then, and a recording that ends dirty is
    /// impure (only the next entry point clears it).
    dirty: bool,
    /// The first own-heap index the running entry point allocated.
    floor: u32,
    /// The lowest own-heap index written since the innermost recording began (0: another
    /// segment's object).
    written_from: u32,
}

impl World {
    pub fn new() -> World {
        World {
            saved: Saved {
                globals: Default::default(),
                heap: Heap::new(),
                class_attrs: Default::default(),
            },
            class_bases: Default::default(),
            lineages: Default::default(),
            log: WriteLog::default(),
        }
    }

    /// Every imported module's globals.
    pub fn globals(&self) -> &Globals {
        &self.saved.globals
    }

    /// Every module's globals, to write.
    pub fn globals_mut(&mut self) -> &mut Globals {
        self.log.dirty = true;
        Arc::make_mut(&mut self.saved.globals)
    }

    pub fn heap(&self) -> &Heap {
        &self.saved.heap
    }

    /// A new object, in the own segment (the writes that concern the memo are those of older ones).
    pub fn alloc(&mut self, object: Object) -> ObjId {
        self.saved.heap.alloc(object)
    }

    pub fn object(&self, id: ObjId) -> Option<&Object> {
        self.saved.heap.get(id)
    }

    /// An object, to write.
    pub fn object_mut(&mut self, id: ObjId) -> Option<&mut Object> {
        let heap = &mut self.saved.heap;
        let log = &mut self.log;
        let index = if id.segment == heap.own() {
            id.index
        } else {
            0
        };
        log.written_from = log.written_from.min(index);
        if index < log.floor {
            log.dirty = true;
        }
        heap.get_mut(id)
    }

    pub fn class_attrs(&self) -> &ClassTable<HashMap<Name, Value>> {
        &self.saved.class_attrs
    }

    /// A class's attributes, to write.
    pub fn class_attrs_mut(&mut self, id: ClassId) -> &mut HashMap<Name, Value> {
        self.log.dirty = true;
        Arc::make_mut(self.saved.class_attrs.entry(id))
    }

    pub fn class_bases(&self) -> &ClassTable<Vec<Value>> {
        &self.class_bases
    }

    /// A class's bases, written by its `class` statement; the lineages walked are forgotten.
    pub fn set_class_bases(&mut self, id: ClassId, bases: Vec<Value>) {
        self.log.dirty = true;
        self.lineages.get_mut().clear();
        self.class_bases.insert(id, Arc::new(bases));
    }

    /// The lineages walked so far (a cache of what `class_bases` gives).
    pub fn lineages(&self) -> &RefCell<HashMap<ClassId, Rc<[ClassId]>>> {
        &self.lineages
    }

    /// The shared state now; cheap, since its tables are shared until written.
    pub fn save(&self) -> Saved {
        self.saved.clone()
    }

    /// Goes back to a saved state (a child or an entry point ended: what it wrote was its own).
    pub fn restore(&mut self, saved: Saved) {
        self.saved = saved;
    }

    /// An entry point starts from `saved`: nothing written yet, and what it allocates is its own.
    pub fn start_entry(&mut self, saved: Saved) {
        self.restore(saved);
        self.log.dirty = false;
        self.log.floor = self.saved.heap.own_len();
    }

    /// A spawned child's new interpreter: no module imported yet.
    pub fn forget_modules(&mut self) {
        self.log.dirty = true;
        self.saved.globals = Default::default();
    }

    /// Makes a frozen import's modules (those not imported here yet), objects and classes part
    /// of this world.
    pub fn attach(&mut self, frozen: &FrozenWorld) {
        self.log.dirty = true;
        merge_missing(&mut self.saved.globals, &frozen.saved.globals);
        self.saved.heap.attach(&frozen.saved.heap);
        self.saved
            .class_attrs
            .merge_missing(&frozen.saved.class_attrs);
        self.lineages.get_mut().clear();
        self.class_bases.merge_missing(&frozen.class_bases);
    }

    /// What the import run in this world left, for the import cache.
    pub fn freeze(self) -> FrozenWorld {
        FrozenWorld {
            saved: self.saved,
            class_bases: self.class_bases,
        }
    }

    /// Since the running entry point started, shared state it did not make was written.
    pub fn dirty(&self) -> bool {
        self.log.dirty
    }

    /// Whether the running entry point allocated none of `id` (so that it is the same, unwritten,
    /// in every entry point while the world is clean).
    pub fn older_than_entry(&self, id: ObjId) -> bool {
        id.segment != self.saved.heap.own() || id.index < self.log.floor
    }

    /// A recording begins: the lowest own-heap index written is tracked afresh; the outer
    /// recording's is returned, for [`World::end_recording`].
    pub fn begin_recording(&mut self) -> u32 {
        std::mem::replace(&mut self.log.written_from, u32::MAX)
    }

    /// A recording ends: the lowest own-heap index written while it ran (the outer recording's
    /// `outer`, given back, goes on with both).
    pub fn end_recording(&mut self, outer: u32) -> u32 {
        let written_from = self.log.written_from;
        self.log.written_from = outer.min(written_from);
        written_from
    }
}
