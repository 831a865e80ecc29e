//! Orders by `f64` keys through one function: every caller shares one compiled sort (each
//! `sort_by` on a new element type or closure is another copy of the sort in the wasm).

/// The indices of `keys` in ascending order (stable; NaN last, as `f64::total_cmp`).
pub fn ascending(keys: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by(|a, b| keys[*a].total_cmp(&keys[*b]));
    idx
}

/// `items` reordered by ascending `key` (stable).
pub fn sorted_by_key<T>(items: Vec<T>, key: impl Fn(&T) -> f64) -> Vec<T> {
    let keys: Vec<f64> = items.iter().map(key).collect();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    ascending(&keys)
        .into_iter()
        .map(|i| slots[i].take().expect("each index once"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_ascending_order() {
        assert_eq!(ascending(&[3.0, 1.0, 2.0, 1.0]), vec![1, 3, 2, 0]);
        let v = sorted_by_key(vec![("a", 2.0), ("b", 1.0), ("c", 2.0)], |p| p.1);
        assert_eq!(v, vec![("b", 1.0), ("a", 2.0), ("c", 2.0)]);
        assert!(ascending(&[]).is_empty());
    }
}
