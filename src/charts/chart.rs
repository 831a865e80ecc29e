//! What the app needs of a chart to put it on a canvas: a name, a description, a drawing, its
//! numbers as a table, and (for a chart whose points can be picked) what a point is. Every chart
//! family implements [`Chart`], so one canvas component (`ui::chart_canvas`) draws, sizes, exports
//! and tabulates them all, and [`svg`] exports any of them natively.

use super::dyn_backend::DynBackend;
use super::tables::DataTable;
use super::ChartStyle;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};

/// The drawing area every chart draws on: one backend type for the canvas and the SVG export.
pub type Area<'a> = DrawingArea<DynBackend<'a>, Shift>;

/// A point of a chart that can be picked, as its tooltip shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct PointInfo {
    /// The first line, in bold.
    pub title: String,
    pub lines: Vec<String>,
}

/// A chart of one family (the Design view's four, the Routing view's four, ...).
pub trait Chart: Copy + Send + Sync + 'static {
    /// Everything the chart shows, cheap to clone (it holds `Arc`s).
    type Data: Clone + Send + Sync + 'static;

    /// The canvas's `data-testid`.
    fn testid(self) -> &'static str;

    /// What the chart shows, in words (for screen readers and under the chart).
    fn description(self) -> &'static str;

    /// The exported file's name, without extension.
    fn file_stem(self) -> &'static str {
        self.testid().trim_start_matches("chart-")
    }

    /// Draw the chart of `data`, `highlight` marking one pickable point; returns the pickable
    /// points' pixel positions (empty when the chart has none).
    fn draw(
        self,
        area: &Area<'_>,
        data: &Self::Data,
        highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String>;

    /// The numbers the chart draws.
    fn table(self, data: &Self::Data) -> DataTable;

    /// Pickable point `i` as its tooltip shows it (None: the chart's points are not pickable).
    fn point(self, _data: &Self::Data, _i: usize) -> Option<PointInfo> {
        None
    }
}

/// A drawing without pickable points, as [`Chart::draw`] returns it.
pub fn drawn<E: std::fmt::Display>(r: Result<(), E>) -> Result<Vec<(i32, i32)>, String> {
    r.map(|()| Vec::new()).map_err(|e| e.to_string())
}

/// Pickable points' pixel positions divided by `scale` (device to CSS pixels), as the JSON array
/// of `[x, y]` pairs the page carries for tests and tools, to one decimal. Written with integer
/// arithmetic: `{:.1}` of a float costs microseconds in the browser, and a 1,440-run calibration
/// chart spent some 10 ms of its frame on it.
pub fn points_json(points: &[(i32, i32)], scale: f64) -> String {
    let mut s = String::with_capacity(2 + points.len() * 14);
    s.push('[');
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push('[');
        tenths(&mut s, f64::from(x) / scale);
        s.push(',');
        tenths(&mut s, f64::from(y) / scale);
        s.push(']');
    }
    s.push(']');
    s
}

/// `v` to one decimal, its tenths rounded half away from zero.
fn tenths(s: &mut String, v: f64) {
    use std::fmt::Write;
    let t = (v * 10.0).round() as i64;
    if t < 0 {
        s.push('-');
    }
    let a = t.unsigned_abs();
    let _ = write!(s, "{}.{}", a / 10, a % 10);
}

/// `chart` of `data` as an SVG document of `width` x `height` pixels.
pub fn svg<C: Chart>(chart: C, data: &C::Data, width: u32, height: u32) -> Result<String, String> {
    svg_as_drawn(chart, data, width, height).map(|s| for_papers(&s))
}

/// The chart as the page draws it (title included), as SVG.
pub fn svg_as_drawn<C: Chart>(
    chart: C,
    data: &C::Data,
    width: u32,
    height: u32,
) -> Result<String, String> {
    svg_of(width, height, &|area| {
        chart
            .draw(area, data, None, &ChartStyle::default())
            .map(|_| ())
    })
}

/// The font stack an exported SVG names (a paper's figure should not fall back to whatever
/// "sans-serif" is on the reader's machine).
pub const SVG_FONTS: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";

/// An SVG for a paper: without the chart's title (the first text drawn: a paper's caption says
/// it), with the fonts named.
pub fn for_papers(svg: &str) -> String {
    let untitled = match (svg.find("<text"), svg.find("</text>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &svg[..a], &svg[b + "</text>".len()..]),
        _ => svg.to_string(),
    };
    untitled.replace(
        "font-family=\"sans-serif\"",
        &format!("font-family=\"{SVG_FONTS}\""),
    )
}

/// An SVG document of what `draw` draws: compiled once, whatever the chart.
#[inline(never)]
fn svg_of(
    width: u32,
    height: u32,
    draw: &dyn Fn(&Area<'_>) -> Result<(), String>,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let mut backend = SVGBackend::with_string(&mut svg, (width, height));
        draw(&DynBackend(&mut backend).into_drawing_area())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::StudyChart;

    #[test]
    fn points_are_written_as_a_json_array_to_a_tenth_of_a_pixel() {
        assert_eq!(points_json(&[], 2.0), "[]");
        assert_eq!(
            points_json(&[(3, -7), (0, 1_999)], 2.0),
            "[[1.5,-3.5],[0.0,999.5]]"
        );
        assert_eq!(points_json(&[(-1, 10)], 3.0), "[[-0.3,3.3]]");
        // Within half a tenth of the position, as `{:.1}` is, at every device pixel ratio.
        for scale in [1.0, 1.25, 1.5, 2.0, 3.0] {
            let pts: Vec<(i32, i32)> = (-500..500).map(|i| (i * 7, 13 - i * 3)).collect();
            let read: Vec<[f64; 2]> = serde_json::from_str(&points_json(&pts, scale)).unwrap();
            assert_eq!(read.len(), pts.len());
            for (&(x, y), [rx, ry]) in pts.iter().zip(read) {
                assert!(
                    (rx - f64::from(x) / scale).abs() <= 0.05 + 1e-9,
                    "{x} / {scale}: {rx}"
                );
                assert!(
                    (ry - f64::from(y) / scale).abs() <= 0.05 + 1e-9,
                    "{y} / {scale}: {ry}"
                );
            }
        }
    }

    #[test]
    fn an_exported_svg_has_no_title_and_names_its_fonts() {
        let study = crate::analysis::study::study(&crate::presets::default_scenario()).unwrap();
        let shown = crate::charts::StudyShown {
            study: std::sync::Arc::new(study),
            pinned: None,
        };
        let s = svg(StudyChart::Front, &shown, 900, 420).unwrap();
        assert!(
            !s.contains("Pareto front: least training time"),
            "the title is still there"
        );
        assert!(s.contains("current design: 722.41 ms"));
        assert!(s.contains(SVG_FONTS) && !s.contains("font-family=\"sans-serif\""));
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    }
}
