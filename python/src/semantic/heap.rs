//! The interpreter's objects with identity, in segments: each interpreter allocates in a segment of
//! its own, and a module imported from the import cache brings the (shared, copy-on-write) segments
//! its objects live in, so values keep pointing at the right objects without renumbering.

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use super::value::ObjId;
use super::Object;

static NEXT_SEGMENT: AtomicU32 = AtomicU32::new(0);

#[derive(Clone, Debug)]
pub(super) struct Heap {
    own: u32,
    /// Each object behind its own `Arc`: a segment shared with a saved state (a branch, an entry
    /// point's start) is copied as pointers on its first write, and the object written alone.
    segments: Arc<HashMap<u32, Arc<Vec<Arc<Object>>>>>,
}

impl Heap {
    pub fn new() -> Heap {
        Heap {
            own: NEXT_SEGMENT.fetch_add(1, Ordering::Relaxed),
            segments: Default::default(),
        }
    }

    pub fn alloc(&mut self, object: Object) -> ObjId {
        let segments = Arc::make_mut(&mut self.segments);
        let segment = Arc::make_mut(segments.entry(self.own).or_default());
        segment.push(Arc::new(object));
        ObjId {
            segment: self.own,
            index: segment.len() as u32 - 1,
        }
    }

    /// This heap's own segment, where it allocates.
    pub fn own(&self) -> u32 {
        self.own
    }

    /// How many objects the own segment holds.
    pub fn own_len(&self) -> u32 {
        self.segments.get(&self.own).map_or(0, |s| s.len() as u32)
    }

    /// The own segment's objects from index `from` on.
    pub fn own_objects(&self, from: u32) -> Vec<Arc<Object>> {
        self.segments.get(&self.own).map_or(Vec::new(), |s| {
            s.get(from as usize..).unwrap_or_default().to_vec()
        })
    }

    pub fn get(&self, id: ObjId) -> Option<&Object> {
        self.segments
            .get(&id.segment)?
            .get(id.index as usize)
            .map(|o| &**o)
    }

    pub fn get_mut(&mut self, id: ObjId) -> Option<&mut Object> {
        let segments = Arc::make_mut(&mut self.segments);
        Arc::make_mut(segments.get_mut(&id.segment)?)
            .get_mut(id.index as usize)
            .map(Arc::make_mut)
    }

    /// Makes another heap's objects reachable here (those of segments this heap lacks).
    pub fn attach(&mut self, other: &Heap) {
        super::class_table::merge_missing(&mut self.segments, &other.segments);
    }
}
