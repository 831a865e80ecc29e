//! A chart's canvas backend that measures its text with the canvas itself.
//!
//! Plotters measures text in the browser by appending a `<span>` to the page, reading its size and
//! removing it: each label forces the whole page's layout. A chart lays out some thirty labels,
//! so an edit spent several milliseconds of its frame in layouts. Here the text is measured by
//! the canvas's own `measureText` (font metrics only, no layout); everything else is the canvas
//! backend's, except circles and filled rectangles: a run of them drawn with one pen (a scatter
//! series, a heatmap's cells of one colour) is one path, filled or stroked once, instead of a style,
//! a path and a fill per shape (1,440 points drew in over 50 ms on a slow machine).

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// [`CanvasBackend`] with text measured by the canvas's 2D context.
pub struct MeasuredCanvas {
    backend: CanvasBackend,
    context: CanvasRenderingContext2d,
    /// The pen of the shapes (circles, filled rectangles) in the context's current path, not yet
    /// filled or stroked.
    shapes: Option<Pen>,
}

/// How a batched shape is drawn: its colour, its line width, filled or outlined.
#[derive(Clone, Copy, PartialEq)]
struct Pen {
    rgb: (u8, u8, u8),
    alpha: f64,
    width: u32,
    fill: bool,
}

impl MeasuredCanvas {
    /// The backend drawing on `canvas` (None when it has no 2D context).
    pub fn new(canvas: HtmlCanvasElement) -> Option<MeasuredCanvas> {
        let context = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        let backend = CanvasBackend::with_canvas_object(canvas)?;
        Some(MeasuredCanvas {
            backend,
            context,
            shapes: None,
        })
    }

    /// Make the context's current path the one of shapes drawn with `s` (filled or outlined),
    /// filling or stroking the shapes of another pen first. False: `s` is invisible.
    fn open_path<S: BackendStyle>(&mut self, s: &S, fill: bool) -> bool {
        let c = s.color();
        if c.alpha == 0.0 {
            return false;
        }
        let pen = Pen {
            rgb: c.rgb,
            alpha: c.alpha,
            // A fill has no line width: filled circles and rectangles of a colour share a path.
            width: if fill { 0 } else { s.stroke_width() },
            fill,
        };
        if self.shapes != Some(pen) {
            self.flush();
            self.context.begin_path();
            self.shapes = Some(pen);
        }
        true
    }

    /// Fill or stroke the pending shapes, before anything else is drawn over them.
    fn flush(&mut self) {
        let Some(pen) = self.shapes.take() else {
            return;
        };
        let ((r, g, b), a) = (pen.rgb, pen.alpha);
        let color = format!("rgba({r},{g},{b},{a})");
        if pen.fill {
            self.context.set_fill_style_str(&color);
            self.context.fill();
        } else {
            self.context.set_stroke_style_str(&color);
            self.context.set_line_width(f64::from(pen.width));
            self.context.stroke();
        }
    }
}

/// Shapes still pending when a drawing ends without `present` (or stops at an error) are drawn.
impl Drop for MeasuredCanvas {
    fn drop(&mut self) {
        self.flush();
    }
}

type Result<T> =
    std::result::Result<T, DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.backend.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<()> {
        self.backend.ensure_prepared()
    }
    fn present(&mut self) -> Result<()> {
        self.flush();
        self.backend.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<()> {
        self.flush();
        self.backend.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<()> {
        self.flush();
        self.backend.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<()> {
        if !fill {
            self.flush();
            return self.backend.draw_rect(a, b, s, fill);
        }
        // A filled rectangle (a heatmap's cell, a bar) joins the path of its colour's shapes.
        if self.open_path(s, true) {
            self.context.rect(
                f64::from(a.0),
                f64::from(a.1),
                f64::from(b.0 - a.0),
                f64::from(b.1 - a.1),
            );
        }
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<()> {
        self.flush();
        self.backend.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        s: &S,
        fill: bool,
    ) -> Result<()> {
        if !self.open_path(s, fill) {
            return Ok(());
        }
        let (x, y, r) = (f64::from(center.0), f64::from(center.1), f64::from(radius));
        // A sub-path of its own: no line joins this circle to the one before.
        self.context.move_to(x + r, y);
        // Throws only for a negative radius, which a u32 is not.
        let _ = self.context.arc(x, y, r, 0.0, std::f64::consts::TAU);
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        s: &S,
    ) -> Result<()> {
        self.flush();
        self.backend.fill_polygon(vertices, s)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &S,
        pos: BackendCoord,
    ) -> Result<()> {
        self.flush();
        self.backend.draw_text(text, s, pos)
    }
    /// The text's unrotated width and height as the page would lay it out in a span: the advance
    /// width, and the font's ascent plus descent for the line.
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, s: &S) -> Result<(u32, u32)> {
        // The same font string as the canvas backend draws with.
        self.context.set_font(&format!(
            "{} {}px {}",
            s.style().as_str(),
            s.size(),
            s.family().as_str()
        ));
        let Ok(m) = self.context.measure_text(text) else {
            return self.backend.estimate_text_size(text, s);
        };
        let height = m.font_bounding_box_ascent() + m.font_bounding_box_descent();
        Ok((
            m.width().round().max(0.0) as u32,
            height.round().max(0.0) as u32,
        ))
    }
}
