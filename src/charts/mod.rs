//! Charts, each one function generic over the Plotters backend: the same code draws on the app's
//! canvas, exports SVG and runs in native tests.

pub mod bw_bars;
pub mod calibration_chart;
pub mod chart;
pub mod cluster_charts;
pub mod codesign_chart;
pub mod compare_chart;
pub mod cost_bars;
pub mod dyn_backend;
pub mod front;
pub mod landscape_chart;
pub mod route_cdf;
pub mod route_charts;
pub mod study_charts;
pub mod tables;
pub mod time_bars;
pub mod traffic_bars;

pub use bw_bars::{draw_bw_bars, BwBar};
pub use chart::{Area, Chart, PointInfo};
pub use cost_bars::{draw_cost_bars, CostBar};
pub use front::{draw_front, Design, FrontChart};
pub use study_charts::{front_csv, StudyChart, StudyShown};
pub use time_bars::{draw_time_bars, TimeBar};

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

    /// A title's font: `base` CSS pixels, smaller when `title` would not fit `width` backend
    /// pixels (a phone, Large text on a narrow window): never clipped on either side. Sized
    /// for a sans-serif's average glyph (0.6 em, DejaVu Sans' mixed text).
    pub fn title_font(&self, base: f64, title: &str, width: u32) -> f64 {
        let chars = title.chars().count().max(1) as f64;
        let fits = 0.92 * f64::from(width) / (0.6 * chars);
        self.font(base)
            .min(fits)
            .max(self.font(9.0).min(self.font(base)))
    }
}

/// The frame shared by the per-dimension bar charts: title, a segmented x axis with one labelled
/// segment per dimension, and a value axis from 0 to `top` described by `y_desc`.
pub(crate) fn dimension_frame<'a, DB: plotters::prelude::DrawingBackend>(
    area: &'a plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    y_desc: &str,
    labels: &[String],
    top: f64,
    style: &ChartStyle,
) -> Result<DimensionChart<'a, DB>, plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    area.fill(&WHITE)?;
    let top = if top > 0.0 && top.is_finite() {
        top
    } else {
        1.0
    };
    // Plotters' segmented integer ranges include their end: 0..=last gives one segment per bar.
    let last = labels.len().saturating_sub(1) as u32;
    let mut chart = ChartBuilder::on(area)
        .margin(style.px(12.0))
        .caption(
            title,
            (
                "sans-serif",
                style.title_font(16.0, title, area.dim_in_pixel().0),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(34.0))
        .y_label_area_size(style.px(56.0))
        .build_cartesian_2d((0u32..last).into_segmented(), 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(palette::INK.mix(0.12))
        .y_desc(y_desc)
        .label_style(("sans-serif", style.font(12.0)))
        .axis_desc_style(("sans-serif", style.font(13.0)))
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|y| {
            if top >= 20.0 {
                format!("{y:.0}")
            } else {
                front::trimmed(*y, 2)
            }
        })
        .draw()?;
    Ok(chart)
}

/// Draw the series legend of any chart at `position` (the look every chart shares).
pub(crate) fn draw_legend<'a, DB, CT>(
    chart: &mut plotters::chart::ChartContext<'a, DB, CT>,
    position: plotters::chart::SeriesLabelPosition,
    style: &ChartStyle,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: plotters::prelude::DrawingBackend + 'a,
    CT: plotters::coord::CoordTranslate,
{
    use plotters::prelude::*;
    // A narrow plot (a phone, Large text in a column) gets a smaller legend, not one that covers
    // it and runs past its edge.
    let width = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = (width / f64::from(style.px(440.0))).min(1.0);
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", style.font(12.0) * fit.max(0.6)))
        .background_style(WHITE.mix(0.85))
        .border_style(palette::INK.mix(0.3))
        .draw()
}

/// A legend of `entries` (label, line colour) beside the plot, or under it on a narrow area,
/// where it covers no data (lines that fill the whole plot: the Cluster view's NICs busy):
/// draws the legend and returns the plot's area.
pub(crate) fn legend_beside<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, plotters::style::RGBColor)],
    style: &ChartStyle,
) -> Result<
    plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>,
> {
    use plotters::prelude::*;
    area.fill(&WHITE)?;
    let (w, h) = area.dim_in_pixel();
    let font = style.font(12.0);
    let row = style.px(18.0) as i32;
    let longest = entries
        .iter()
        .map(|e| e.0.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let column = (0.6 * font * longest) as u32 + style.px(36.0);
    let beside = w >= column + style.px(420.0);
    let (main, legend) = match beside {
        true => area.split_horizontally(w.saturating_sub(column) as i32),
        false => {
            let strip = entries.len() as u32 * row as u32 + style.px(12.0);
            area.split_vertically(h.saturating_sub(strip) as i32)
        }
    };
    let top = match beside {
        true => style.px(48.0) as i32,
        false => 0,
    };
    let text = ("sans-serif", font).into_font().color(&palette::INK);
    for (k, (label, color)) in entries.iter().enumerate() {
        let y = top + k as i32 * row + row / 2;
        let x0 = style.px(8.0) as i32;
        legend.draw(&PathElement::new(
            vec![(x0, y), (x0 + style.px(18.0) as i32, y)],
            color.stroke_width(style.px(2.0)),
        ))?;
        legend.draw(&Text::new(
            label.clone(),
            (x0 + style.px(24.0) as i32, y - (font / 2.0) as i32),
            text.clone(),
        ))?;
    }
    Ok(main)
}

/// Draw segment `k` of every bar of a stacked per-dimension chart (each bar's `parts`, in
/// `unit`s: the segment sits on the ones before it), named `name` in the legend.
pub(crate) fn draw_stack_segment<'a, DB: plotters::prelude::DrawingBackend + 'a>(
    chart: &mut DimensionChart<'a, DB>,
    parts: &[Vec<f64>],
    (k, unit): (usize, f64),
    (name, color): (String, plotters::style::RGBColor),
    style: &ChartStyle,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let swatch = style.px(5.0) as i32;
    let rects = parts.iter().enumerate().map(move |(i, p)| {
        let y0: f64 = p.iter().take(k).sum::<f64>() * unit;
        let y1 = y0 + p.get(k).copied().unwrap_or(0.0) * unit;
        let i = i as u32;
        let mut r = Rectangle::new(
            [
                (SegmentValue::Exact(i), y0),
                (SegmentValue::Exact(i + 1), y1),
            ],
            color.filled(),
        );
        r.set_margin(0, 0, style.px(28.0), style.px(28.0));
        r
    });
    chart.draw_series(rects)?.label(name).legend(move |(x, y)| {
        let s = swatch;
        Rectangle::new([(x, y - s), (x + 2 * s, y + s)], color.filled())
    });
    Ok(())
}

/// Draw the legend of a per-dimension chart at `position` and present the area.
pub(crate) fn finish_with_legend<'a, DB: plotters::prelude::DrawingBackend + 'a>(
    mut chart: DimensionChart<'a, DB>,
    position: plotters::chart::SeriesLabelPosition,
    style: &ChartStyle,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    draw_legend(&mut chart, position, style)?;
    chart.plotting_area().present()
}

/// A chart with one segment per dimension.
pub(crate) type DimensionChart<'a, DB> = plotters::chart::ChartContext<
    'a,
    DB,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordu32>,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// Colours of the network components, the same in every chart.
pub mod palette {
    use plotters::style::RGBColor;
    pub const LINKS: RGBColor = RGBColor(0x2f, 0x6f, 0xb3);
    pub const SWITCHES: RGBColor = RGBColor(0xe0, 0x8a, 0x1e);
    pub const NICS: RGBColor = RGBColor(0x4a, 0xa8, 0x6b);

    /// A cost component's colour.
    pub fn of_component(c: crate::model::CostComponent) -> RGBColor {
        match c {
            crate::model::CostComponent::Links => LINKS,
            crate::model::CostComponent::Switches => SWITCHES,
            crate::model::CostComponent::Nics => NICS,
        }
    }
    pub const INK: RGBColor = RGBColor(0x22, 0x2a, 0x35);
    /// The projected-gradient method's path on the landscape.
    pub const GRADIENT: RGBColor = RGBColor(0xe0, 0x6c, 0x00);
    pub const UNIFORM: RGBColor = RGBColor(0xa9, 0xb4, 0xc2);
    /// The uniform design's marker (darker than the bars, to stand out on white).
    pub const UNIFORM_MARK: RGBColor = RGBColor(0x6b, 0x76, 0x85);
    /// A pinned scenario (side by side).
    pub const PINNED: RGBColor = RGBColor(0x8e, 0x5a, 0xb5);
    /// The current design's marker.
    pub const CURRENT: RGBColor = RGBColor(0xc0, 0x39, 0x2b);
    /// Compute time in the time breakdown.
    pub const COMPUTE: RGBColor = RGBColor(0xc9, 0xd1, 0xdb);
    /// A routing algorithm's colour, the same in every Routing and Cluster chart (its place in
    /// [`crate::routing::Algorithm::ALL`]).
    pub fn of_algorithm(a: crate::routing::Algorithm) -> RGBColor {
        let i = crate::routing::Algorithm::ALL
            .iter()
            .position(|x| *x == a)
            .unwrap_or(0);
        ALGORITHMS[i % ALGORITHMS.len()]
    }

    /// One colour per routing algorithm: the dimensions' six, then magenta (multi-flow ECMP)
    /// and brown (the authors' annealing), so that no two algorithms share one.
    const ALGORITHMS: [RGBColor; 8] = [
        DIMS[0],
        DIMS[1],
        DIMS[2],
        DIMS[3],
        DIMS[4],
        DIMS[5],
        RGBColor(0xc2, 0x3b, 0x8e),
        RGBColor(0x8c, 0x6d, 0x31),
    ];

    /// One colour per dimension (exposed communication), cycling past six.
    pub const DIMS: [RGBColor; 6] = [
        RGBColor(0x2f, 0x6f, 0xb3),
        RGBColor(0xe0, 0x8a, 0x1e),
        RGBColor(0x4a, 0xa8, 0x6b),
        RGBColor(0x8e, 0x5a, 0xb5),
        RGBColor(0xc0, 0x39, 0x2b),
        RGBColor(0x1b, 0x9a, 0xaa),
    ];
}
