//! Row identities: which row of the form (a dimension, a cost tier, a workload) is which across
//! moves, removals and additions, so that the page keeps a row's inputs (and the keyboard focus in
//! them) while other rows come and go, instead of drawing every row anew by position.

use std::sync::atomic::{AtomicU32, Ordering};

/// The identity of one row of the form. Every row made gets a new one; a row keeps it while it is
/// edited through its own inputs, moved or has neighbours removed. A row whose texts are replaced
/// in any other way (a new network, a preset picked) is a new row with a new id, so that its inputs
/// are drawn with the new texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowId(u32);

impl RowId {
    /// An id no row has had before in this process.
    pub fn fresh() -> RowId {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        RowId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Rows that carry a [`RowId`].
pub trait Row {
    fn id(&self) -> RowId;
}

/// The position of the row `id` among `rows`.
pub fn position<R: Row>(rows: &[R], id: RowId) -> Option<usize> {
    rows.iter().position(|r| r.id() == id)
}

/// The row `id` among `rows`, to edit.
pub fn row_mut<R: Row>(rows: &mut [R], id: RowId) -> Option<&mut R> {
    rows.iter_mut().find(|r| r.id() == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct R(RowId, &'static str);
    impl Row for R {
        fn id(&self) -> RowId {
            self.0
        }
    }

    #[test]
    fn ids_are_new_each_time_and_find_their_row_wherever_it_moved() {
        let ids: Vec<RowId> = (0..100).map(|_| RowId::fresh()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 100);
        let mut rows = vec![R(ids[0], "a"), R(ids[1], "b"), R(ids[2], "c")];
        rows.swap(0, 2);
        rows.remove(1);
        assert_eq!(position(&rows, ids[0]), Some(1));
        assert_eq!(position(&rows, ids[2]), Some(0));
        assert_eq!(position(&rows, ids[1]), None);
        row_mut(&mut rows, ids[0]).unwrap().1 = "A";
        assert_eq!(rows[1].1, "A");
        assert!(row_mut(&mut rows, ids[1]).is_none());
    }
}
