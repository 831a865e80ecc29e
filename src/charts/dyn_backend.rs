//! One drawing backend type for every chart: [`DynBackend`] forwards to any Plotters backend behind
//! an object-safe trait. The chart functions are generic over the backend; drawing them only
//! through `DynBackend` compiles each of them (and Plotters' chart machinery) once in the wasm,
//! instead of once for the canvas and again for the SVG export.

use plotters::style::{FontDesc, TextStyle};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use std::fmt;

/// A backend's error, as text.
#[derive(Debug)]
pub struct DynError(pub String);

impl fmt::Display for DynError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DynError {}

type Result<T> = std::result::Result<T, DrawingErrorKind<DynError>>;

/// A stroke or fill: colour and width.
#[derive(Clone, Copy)]
pub struct Stroke {
    color: BackendColor,
    width: u32,
}

impl BackendStyle for Stroke {
    fn color(&self) -> BackendColor {
        self.color
    }
    fn stroke_width(&self) -> u32 {
        self.width
    }
}

fn stroke<S: BackendStyle>(s: &S) -> Stroke {
    Stroke {
        color: s.color(),
        width: s.stroke_width(),
    }
}

/// The same text style as Plotters' own (family, size, slant, colour, anchor, rotation).
fn text_style<T: BackendTextStyle>(s: &T) -> TextStyle<'_> {
    TextStyle {
        font: FontDesc::new(s.family(), s.size(), s.style()).transform(s.transform()),
        color: s.color(),
        pos: s.anchor(),
    }
}

fn lift<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<DynError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(DynError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// The object-safe part of a backend that the charts use.
pub trait Sink {
    fn size(&self) -> (u32, u32);
    fn prepare(&mut self) -> Result<()>;
    fn show(&mut self) -> Result<()>;
    fn pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<()>;
    fn line(&mut self, a: BackendCoord, b: BackendCoord, s: Stroke) -> Result<()>;
    fn rect(&mut self, a: BackendCoord, b: BackendCoord, s: Stroke, fill: bool) -> Result<()>;
    fn path(&mut self, pts: &[BackendCoord], s: Stroke) -> Result<()>;
    fn circle(&mut self, c: BackendCoord, r: u32, s: Stroke, fill: bool) -> Result<()>;
    fn polygon(&mut self, pts: &[BackendCoord], s: Stroke) -> Result<()>;
    fn text(&mut self, text: &str, style: &TextStyle<'_>, pos: BackendCoord) -> Result<()>;
    fn text_size(&self, text: &str, style: &TextStyle<'_>) -> Result<(u32, u32)>;
}

impl<B: DrawingBackend> Sink for B {
    fn size(&self) -> (u32, u32) {
        self.get_size()
    }
    fn prepare(&mut self) -> Result<()> {
        self.ensure_prepared().map_err(lift)
    }
    fn show(&mut self) -> Result<()> {
        self.present().map_err(lift)
    }
    fn pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<()> {
        self.draw_pixel(p, c).map_err(lift)
    }
    fn line(&mut self, a: BackendCoord, b: BackendCoord, s: Stroke) -> Result<()> {
        self.draw_line(a, b, &s).map_err(lift)
    }
    fn rect(&mut self, a: BackendCoord, b: BackendCoord, s: Stroke, fill: bool) -> Result<()> {
        self.draw_rect(a, b, &s, fill).map_err(lift)
    }
    fn path(&mut self, pts: &[BackendCoord], s: Stroke) -> Result<()> {
        self.draw_path(pts.iter().copied(), &s).map_err(lift)
    }
    fn circle(&mut self, c: BackendCoord, r: u32, s: Stroke, fill: bool) -> Result<()> {
        self.draw_circle(c, r, &s, fill).map_err(lift)
    }
    fn polygon(&mut self, pts: &[BackendCoord], s: Stroke) -> Result<()> {
        self.fill_polygon(pts.iter().copied(), &s).map_err(lift)
    }
    fn text(&mut self, text: &str, style: &TextStyle<'_>, pos: BackendCoord) -> Result<()> {
        self.draw_text(text, style, pos).map_err(lift)
    }
    fn text_size(&self, text: &str, style: &TextStyle<'_>) -> Result<(u32, u32)> {
        self.estimate_text_size(text, style).map_err(lift)
    }
}

/// A Plotters backend that forwards to any other.
pub struct DynBackend<'a>(pub &'a mut dyn Sink);

impl DrawingBackend for DynBackend<'_> {
    type ErrorType = DynError;

    fn get_size(&self) -> (u32, u32) {
        self.0.size()
    }
    fn ensure_prepared(&mut self) -> Result<()> {
        self.0.prepare()
    }
    fn present(&mut self) -> Result<()> {
        self.0.show()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<()> {
        self.0.pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<()> {
        self.0.line(from, to, stroke(style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<()> {
        self.0.rect(upper_left, bottom_right, stroke(style), fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<()> {
        let pts: Vec<BackendCoord> = path.into_iter().collect();
        self.0.path(&pts, stroke(style))
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<()> {
        self.0.circle(center, radius, stroke(style), fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<()> {
        let pts: Vec<BackendCoord> = vert.into_iter().collect();
        self.0.polygon(&pts, stroke(style))
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<()> {
        self.0.text(text, &text_style(style), pos)
    }
    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> Result<(u32, u32)> {
        self.0.text_size(text, &text_style(style))
    }
}

#[cfg(test)]
mod tests {
    use super::DynBackend;
    use plotters::coord::Shift;
    use plotters::prelude::*;

    fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) {
        area.fill(&WHITE).unwrap();
        let mut chart = ChartBuilder::on(area)
            .caption("title", ("sans-serif", 16.0))
            .x_label_area_size(30)
            .y_label_area_size(30)
            .build_cartesian_2d(0.0..10.0, 0.0..5.0)
            .unwrap();
        chart.configure_mesh().draw().unwrap();
        chart
            .draw_series([PathElement::new(
                vec![(0.0, 0.0), (9.0, 4.0)],
                RED.stroke_width(3),
            )])
            .unwrap();
        chart
            .draw_series([Circle::new((5.0, 2.0), 4, BLUE.filled())])
            .unwrap();
        area.present().unwrap();
    }

    #[test]
    fn a_chart_through_the_dyn_backend_is_the_same_svg() {
        let mut direct = String::new();
        draw(&SVGBackend::with_string(&mut direct, (300, 200)).into_drawing_area());
        let mut through = String::new();
        {
            let mut svg = SVGBackend::with_string(&mut through, (300, 200));
            draw(&DynBackend(&mut svg).into_drawing_area());
        }
        assert!(direct.len() > 1000);
        assert_eq!(direct, through);
    }
}
