//! Charts, each one function generic over the Plotters backend: the same code draws on the app's
//! canvas, exports SVG and runs in native tests.

pub mod bw_bars;
pub mod cost_bars;

pub use bw_bars::{draw_bw_bars, BwBar};
pub use cost_bars::{draw_cost_bars, CostBar};

/// Sizes and colours shared by the charts. `scale` multiplies every length in pixels: the device pixel
/// ratio of the screen (crisp on high-DPI) times the large-text factor (readable on a projector).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChartStyle {
    pub scale: f64,
}

impl Default for ChartStyle {
    fn default() -> Self {
        ChartStyle { scale: 1.0 }
    }
}

impl ChartStyle {
    /// A length of `base` CSS pixels in backend pixels.
    pub fn px(&self, base: f64) -> u32 {
        (base * self.scale).round().max(1.0) as u32
    }

    /// A font size of `base` CSS pixels in backend pixels.
    pub fn font(&self, base: f64) -> f64 {
        base * self.scale
    }
}

/// Colours of the network components, the same in every chart.
pub mod palette {
    use plotters::style::RGBColor;
    pub const LINKS: RGBColor = RGBColor(0x2f, 0x6f, 0xb3);
    pub const SWITCHES: RGBColor = RGBColor(0xe0, 0x8a, 0x1e);
    pub const NICS: RGBColor = RGBColor(0x4a, 0xa8, 0x6b);
    pub const INK: RGBColor = RGBColor(0x22, 0x2a, 0x35);
    pub const UNIFORM: RGBColor = RGBColor(0xa9, 0xb4, 0xc2);
}
