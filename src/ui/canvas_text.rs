//! A chart's canvas backend that measures its text with the canvas itself.
//!
//! Plotters measures text in the browser by appending a `<span>` to the page, reading its size and
//! removing it: each label forces the whole page's layout. A chart lays out some thirty labels,
//! so an edit spent several milliseconds of its frame in layouts. Here the text is measured by
//! the canvas's own `measureText` (font metrics only, no layout); everything else is the canvas
//! backend's.

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
        Some(MeasuredCanvas { backend, context })
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
        self.backend.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<()> {
        self.backend.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<()> {
        self.backend.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<()> {
        self.backend.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<()> {
        self.backend.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        s: &S,
        fill: bool,
    ) -> Result<()> {
        self.backend.draw_circle(center, radius, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        s: &S,
    ) -> Result<()> {
        self.backend.fill_polygon(vertices, s)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &S,
        pos: BackendCoord,
    ) -> Result<()> {
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
