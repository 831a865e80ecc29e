//! The landscape as a filled contour map: bands of training time above the optimum's (+1%, +2%,
//! +5%, ...), infeasible cells in grey, constraint lines, the uniform split, and both methods'
//! paths ending at the optimum.

use super::chart::{drawn, Area, Chart};
use super::front::trimmed;
use super::tables::DataTable;
use super::{palette, ChartStyle};
use crate::analysis::landscape::Landscape;
use crate::optimize::Method;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::Arc;

/// Band edges, relative to the optimum's time: a cell is in band k when its time is at most
/// `(1 + BANDS[k])` times the optimum's.
pub const BANDS: [f64; 9] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0];

/// The band of a time relative to the optimum (BANDS.len() for the rest).
pub fn band(time_ns: f64, optimum_ns: f64) -> usize {
    let r = time_ns / optimum_ns - 1.0;
    BANDS.iter().position(|b| r <= *b).unwrap_or(BANDS.len())
}

/// A sequential colour from deep blue (near the optimum) to pale yellow.
fn band_color(k: usize) -> RGBColor {
    const RAMP: [(u8, u8, u8); 10] = [
        (0x1d, 0x3f, 0x8f),
        (0x24, 0x5e, 0xa8),
        (0x2c, 0x7f, 0xb8),
        (0x41, 0xa0, 0xc0),
        (0x63, 0xbb, 0xbf),
        (0x8f, 0xd0, 0xb4),
        (0xb9, 0xe1, 0xa9),
        (0xdd, 0xee, 0xa6),
        (0xf3, 0xf5, 0xbb),
        (0xfb, 0xfb, 0xe0),
    ];
    let (r, g, b) = RAMP[k.min(RAMP.len() - 1)];
    RGBColor(r, g, b)
}

/// Draw `l`, with the dimensions' names `names`.
pub fn draw_landscape<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    l: &Landscape,
    names: (&str, &str),
    style: &ChartStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&WHITE)?;
    let (Some(&x1), Some(&y1)) = (l.xs.last(), l.ys.last()) else {
        return area.present();
    };
    let (dx, dy) = (x1 / l.xs.len() as f64, y1 / l.ys.len() as f64);
    // On a narrow canvas (a phone, Large text in a column) the legends go under the plot, in
    // rows, instead of a column beside it that would leave the plot a sliver.
    let (w, h) = area.dim_in_pixel();
    let narrow = w < style.px(560.0);
    let cell = style.px(84.0).max(1);
    let per_row = (w / cell).max(1) as usize;
    // A title row, the bands and infeasible, a row per path, the uniform split and the optimum.
    let rows = 1 + (BANDS.len() + 2).div_ceil(per_row) + l.paths.len() + 2;
    let strip = rows as u32 * style.px(22.0) + style.px(6.0);
    let (main, legend) = match narrow {
        true => area.split_vertically(h.saturating_sub(strip) as i32),
        false => area.split_horizontally(w as i32 - style.px(150.0) as i32),
    };
    let title = match l.objective {
        crate::model::scenario::Objective::Time => "Training time",
        crate::model::scenario::Objective::TimeXCost => "Time × cost",
        crate::model::scenario::Objective::Cost { .. } => "Cost within the time target",
    };
    let title = format!("{title} over ({}, {})", names.0, names.1);
    let mut chart = ChartBuilder::on(&main)
        .margin(style.px(12.0))
        .caption(
            title.clone(),
            (
                "sans-serif",
                style.title_font(16.0, &title, main.dim_in_pixel().0),
            )
                .into_font()
                .color(&palette::INK),
        )
        .x_label_area_size(style.px(40.0))
        .y_label_area_size(style.px(56.0))
        .build_cartesian_2d(0.0..x1 + dx / 2.0, 0.0..y1 + dy / 2.0)?;
    chart
        .configure_mesh()
        .disable_mesh()
        // As many labels as fit (merged numbers otherwise on a phone).
        .x_labels((main.dim_in_pixel().0 / style.px(70.0)).clamp(2, 10) as usize)
        .x_desc(format!("{} (GB/s per NPU)", names.0))
        .y_desc(format!("{} (GB/s per NPU)", names.1))
        .label_style(("sans-serif", style.font(12.0)))
        .axis_desc_style(("sans-serif", style.font(13.0)))
        .x_label_formatter(&|v| trimmed(*v, 1))
        .y_label_formatter(&|v| trimmed(*v, 1))
        .draw()?;
    // Bands of the objective above the least shown (the optimum's, or a grid cell's within the
    // solver's tolerance).
    let best = l
        .optimum_score
        .min(l.least_score().unwrap_or(f64::INFINITY));
    let infeasible = RGBColor(0xe3, 0xe6, 0xea);
    chart.draw_series(l.ys.iter().enumerate().flat_map(|(iy, y)| {
        l.xs.iter().enumerate().map(move |(ix, x)| {
            let color = match l.score(ix, iy) {
                Some(t) => band_color(band(t, best)).filled(),
                None => infeasible.filled(),
            };
            Rectangle::new(
                [(x - dx / 2.0, y - dy / 2.0), (x + dx / 2.0, y + dy / 2.0)],
                color,
            )
        })
    }))?;
    // Constraint lines a x + b y = rhs, clipped to the plot.
    for line in &l.lines {
        let pts: Vec<(f64, f64)> = if line.b != 0.0 {
            (0..=64)
                .map(|k| x1 * k as f64 / 64.0)
                .map(|x| (x, (line.rhs - line.a * x) / line.b))
                .filter(|(_, y)| *y >= 0.0 && *y <= y1 + dy / 2.0)
                .collect()
        } else {
            let x = line.rhs / line.a;
            vec![(x, 0.0), (x, y1)]
        };
        if let Some(&last) = pts.last() {
            chart.draw_series([PathElement::new(
                pts,
                palette::CURRENT.stroke_width(style.px(2.0)),
            )])?;
            chart.draw_series([Text::new(
                line.label.clone(),
                last,
                ("sans-serif", style.font(12.0))
                    .into_font()
                    .color(&palette::CURRENT),
            )])?;
        }
    }
    let r = style.px(5.0) as i32;
    for p in &l.paths {
        // The barrier's path in ink, the gradient's in orange, each iterate a dot, on a white
        // halo that keeps them visible on the darkest bands.
        let (color, dot) = match p.method {
            Method::InteriorPoint => (palette::INK, 3.0),
            Method::ProjectedGradient => (palette::GRADIENT, 1.5),
        };
        chart.draw_series([PathElement::new(
            p.points.clone(),
            WHITE.mix(0.8).stroke_width(style.px(5.0)),
        )])?;
        chart
            .draw_series([PathElement::new(
                p.points.clone(),
                color.stroke_width(style.px(2.0)),
            )])?
            .label(format!("{} ({} steps)", p.method.label(), p.steps))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        let dot = style.px(dot) as i32;
        chart.draw_series(
            p.points
                .iter()
                .map(|q| Circle::new(*q, dot, color.filled())),
        )?;
    }
    if let Some(u) = l.uniform {
        chart
            .draw_series([Circle::new(u, r, palette::UNIFORM_MARK.filled())])?
            .label("uniform split")
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, palette::UNIFORM_MARK.filled()));
    }
    chart
        .draw_series([EmptyElement::at(l.optimum)
            + Circle::new((0, 0), r + 2, palette::CURRENT.filled())
            + Circle::new((0, 0), r + 2, WHITE.stroke_width(style.px(2.0)))])?
        .label("optimum")
        .legend(move |(x, y)| Circle::new((x + 8, y), 5, palette::CURRENT.filled()));
    // The band legend.
    let font = ("sans-serif", style.font(12.0))
        .into_font()
        .color(&palette::INK);
    let (row, sw) = (style.px(22.0) as i32, style.px(18.0) as i32);
    if narrow {
        return narrow_legend(
            &legend,
            l,
            (row, sw, cell as i32, per_row),
            font,
            infeasible,
        )
        .and_then(|_| area.present());
    }
    super::draw_legend(&mut chart, SeriesLabelPosition::UpperRight, style)?;
    let top = style.px(48.0) as i32;
    legend.draw(&Text::new(
        format!("{} vs optimum", l.score_name()),
        (4, top - row),
        font.clone(),
    ))?;
    for k in 0..=BANDS.len() {
        let y = top + k as i32 * row;
        legend.draw(&Rectangle::new(
            [(4, y), (4 + sw, y + sw - 4)],
            band_color(k).filled(),
        ))?;
        let text = match k {
            0 => format!("≤ +{}%", BANDS[0] * 100.0),
            k if k < BANDS.len() => format!("≤ +{}%", BANDS[k] * 100.0),
            _ => format!("> +{}%", BANDS[BANDS.len() - 1] * 100.0),
        };
        legend.draw(&Text::new(text, (8 + sw, y + 2), font.clone()))?;
    }
    let y = top + (BANDS.len() as i32 + 1) * row;
    legend.draw(&Rectangle::new(
        [(4, y), (4 + sw, y + sw - 4)],
        infeasible.filled(),
    ))?;
    legend.draw(&Text::new("infeasible", (8 + sw, y + 2), font))?;
    area.present()
}

/// The legends of a narrow landscape in rows under the plot: the bands (and infeasible), then the
/// paths, the uniform split and the optimum.
fn narrow_legend<DB: DrawingBackend>(
    legend: &DrawingArea<DB, Shift>,
    l: &Landscape,
    (row, sw, cell, per_row): (i32, i32, i32, usize),
    font: TextStyle<'_>,
    infeasible: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    legend.draw(&Text::new(
        format!("{} vs optimum:", l.score_name()),
        (4, 2),
        font.clone(),
    ))?;
    let mut entries: Vec<(String, RGBColor)> = (0..=BANDS.len())
        .map(|k| {
            let text = match k {
                k if k < BANDS.len() => format!("≤ +{}%", BANDS[k] * 100.0),
                _ => format!("> +{}%", BANDS[BANDS.len() - 1] * 100.0),
            };
            (text, band_color(k))
        })
        .collect();
    entries.push(("infeasible".into(), infeasible));
    for p in &l.paths {
        let color = match p.method {
            Method::InteriorPoint => palette::INK,
            Method::ProjectedGradient => palette::GRADIENT,
        };
        entries.push((format!("{} ({} steps)", p.method.label(), p.steps), color));
    }
    if l.uniform.is_some() {
        entries.push(("uniform split".into(), palette::UNIFORM_MARK));
    }
    entries.push(("optimum".into(), palette::CURRENT));
    // The paths' long names take a row each.
    let (mut x, mut y) = (4, row);
    // The paths, the uniform split and the optimum take a row each (their names are long).
    let paths = BANDS.len() + 2..usize::MAX;
    let line = cell * per_row as i32;
    for (i, (text, color)) in entries.into_iter().enumerate() {
        let wide = paths.contains(&i);
        if (wide && x > 4) || x + cell > cell * per_row as i32 + 4 {
            (x, y) = (4, y + row);
        }
        legend.draw(&Rectangle::new(
            [(x, y + 2), (x + sw, y + sw - 2)],
            color.filled(),
        ))?;
        // A long name is set smaller rather than cut at the edge.
        let room = f64::from((line - sw - 8).max(1));
        let fits = room / (0.56 * text.chars().count().max(1) as f64);
        let size = f64::from(row) * 12.0 / 22.0;
        let text_font = ("sans-serif", size.min(fits))
            .into_font()
            .color(&palette::INK);
        legend.draw(&Text::new(text, (x + sw + 4, y + 2), text_font))?;
        x += if wide { line } else { cell };
    }
    Ok(())
}

/// The landscape view's chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LandscapeChart;

/// The names of the landscape's pair of dimensions (the one drawn).
pub fn pair_names(l: &Landscape) -> (String, String) {
    (format!("B{}", l.dims.0 + 1), format!("B{}", l.dims.1 + 1))
}

impl Chart for LandscapeChart {
    type Data = Arc<Landscape>;

    fn testid(self) -> &'static str {
        "chart-landscape"
    }

    fn description(self) -> &'static str {
        "Training time over the bandwidths of two dimensions, with the feasible set and the optimizer's path"
    }

    fn draw(
        self,
        area: &Area<'_>,
        data: &Arc<Landscape>,
        _highlight: Option<usize>,
        style: &ChartStyle,
    ) -> Result<Vec<(i32, i32)>, String> {
        let (a, b) = pair_names(data);
        drawn(draw_landscape(area, data, (&a, &b), style))
    }

    fn table(self, data: &Arc<Landscape>) -> DataTable {
        let (a, b) = pair_names(data);
        super::tables::landscape_table(data, &a, &b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::landscape::landscape;
    use crate::analysis::study::study;
    use crate::presets;

    #[test]
    fn bands_and_a_drawing() {
        assert_eq!(band(100.0, 100.0), 0);
        assert_eq!(band(101.5, 100.0), 1);
        assert_eq!(band(1000.0, 100.0), BANDS.len());
        let s = study(&presets::default_scenario()).unwrap();
        let l = landscape(&s, 0, 3, 12).unwrap();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (900, 600)).into_drawing_area();
            draw_landscape(&area, &l, ("B1", "B4"), &ChartStyle::default()).unwrap();
        }
        // Both methods' paths, each named with its steps in the legend.
        for p in &l.paths {
            let name = format!("{} ({} steps)", p.method.label(), p.steps);
            assert!(svg.contains(&name), "{name}");
        }
        assert_eq!(l.paths.len(), 2);
        assert!(svg.contains("#E06C00") || svg.contains("#e06c00"));
        assert!(svg.contains("infeasible"));
        assert!(svg.matches("<rect").count() >= 144);
    }
}
