//! The uniform split of a total bandwidth, LIBRA's baseline.

/// Why an allocation cannot be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AllocationError {
    #[error("total bandwidth must be a positive finite number of GB/s, got {}", crate::format::number(*.0))]
    BadTotal(f64),
    #[error("the network has no dimensions")]
    NoDimensions,
}

/// The uniform split of `total_gbps` over `dims` dimensions: `B_d = total / D` (LIBRA's baseline).
pub fn uniform_split(dims: usize, total_gbps: f64) -> Result<Vec<f64>, AllocationError> {
    if !(total_gbps.is_finite() && total_gbps > 0.0) {
        return Err(AllocationError::BadTotal(total_gbps));
    }
    if dims == 0 {
        return Err(AllocationError::NoDimensions);
    }
    Ok(vec![total_gbps / dims as f64; dims])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_split_of_500_over_4_dims() {
        assert_eq!(uniform_split(4, 500.0), Ok(vec![125.0; 4]));
        assert_eq!(uniform_split(3, 500.0).unwrap()[0], 500.0 / 3.0);
    }

    #[test]
    fn bad_totals_are_errors() {
        assert_eq!(uniform_split(4, 0.0), Err(AllocationError::BadTotal(0.0)));
        assert!(uniform_split(4, f64::NAN).is_err());
        assert!(uniform_split(4, f64::INFINITY).is_err());
        assert_eq!(uniform_split(0, 1.0), Err(AllocationError::NoDimensions));
    }
}
