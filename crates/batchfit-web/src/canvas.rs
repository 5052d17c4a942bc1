//! plotters' [`DrawingBackend`] on a 2D canvas context, for the page's charts.
//!
//! Why not `plotters-canvas`: it writes every colour as `rgba(r,g,b,a)` and
//! every font with `format!` of `f64`s, which brings the standard float
//! formatter into the page (9.5 KB of WebAssembly before gzip, measured with
//! `twiggy`; docs/performance-log.md). Here a colour is `#rrggbb` with its
//! alpha as the context's global alpha, and the font is the charts' one
//! constant ([`FONT`]): the same drawing without formatting a float. The chart
//! code stays generic over plotters' backends and is tested on `SVGBackend`.

use std::error::Error;
use std::fmt;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use web_sys::CanvasRenderingContext2d;

/// The charts' one font, as a CSS `font` value: the canvas measures and draws
/// text in it.
pub const FONT: &str = "12px sans-serif";

/// The canvas refused a call (the browser threw).
#[derive(Debug)]
pub struct CanvasError;

impl fmt::Display for CanvasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the canvas refused to draw")
    }
}

impl Error for CanvasError {}

type Drawn = Result<(), DrawingErrorKind<CanvasError>>;

/// Draws on `context` in an area of `size` CSS pixels (the caller scales the
/// context to device pixels and sets its font to [`FONT`]).
pub struct Canvas {
    pub context: CanvasRenderingContext2d,
    pub size: (u32, u32),
}

/// `#rrggbb`, written without the formatting machinery.
fn css_color(color: BackendColor) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(7);
    out.push('#');
    let (r, g, b) = color.rgb;
    for channel in [r, g, b] {
        out.push(char::from(HEX[usize::from(channel >> 4)]));
        out.push(char::from(HEX[usize::from(channel & 15)]));
    }
    out
}

/// A one-pixel line along an axis is drawn through pixel centres, so that it
/// covers one row or column of pixels rather than two half-lit ones.
fn crisp(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let point = |(x, y): BackendCoord| (f64::from(x), f64::from(y));
    let (mut a, mut b) = (point(from), point(to));
    if from.0 == to.0 {
        a.0 += 0.5;
        b.0 += 0.5;
    } else if from.1 == to.1 {
        a.1 += 0.5;
        b.1 += 0.5;
    }
    (a, b)
}

impl Canvas {
    /// Sets the fill colour and alpha; `false` when nothing would show.
    fn fill(&self, color: BackendColor) -> bool {
        self.context.set_fill_style_str(&css_color(color));
        self.context.set_global_alpha(color.alpha);
        color.alpha > 0.0
    }

    /// Sets the stroke colour, alpha and width; `false` when nothing would show.
    fn stroke(&self, style: &impl BackendStyle) -> bool {
        let color = style.color();
        self.context.set_stroke_style_str(&css_color(color));
        self.context.set_global_alpha(color.alpha);
        self.context.set_line_width(f64::from(style.stroke_width()));
        color.alpha > 0.0
    }

    /// Traces `points` as one open path.
    fn trace(&self, points: impl IntoIterator<Item = BackendCoord>) -> bool {
        let mut points = points.into_iter();
        let Some((x, y)) = points.next() else {
            return false;
        };
        self.context.begin_path();
        self.context.move_to(f64::from(x), f64::from(y));
        for (x, y) in points {
            self.context.line_to(f64::from(x), f64::from(y));
        }
        true
    }
}

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        Ok(())
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, color: BackendColor) -> Drawn {
        if self.fill(color) {
            self.context.fill_rect(f64::from(x), f64::from(y), 1.0, 1.0);
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        if self.stroke(style) {
            let ((x0, y0), (x1, y1)) = crisp(from, to);
            self.context.begin_path();
            self.context.move_to(x0, y0);
            self.context.line_to(x1, y1);
            self.context.stroke();
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (left, top): BackendCoord,
        (right, bottom): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let (x, y) = (f64::from(left), f64::from(top));
        let (w, h) = (f64::from(right - left), f64::from(bottom - top));
        if fill {
            if self.fill(style.color()) {
                self.context.fill_rect(x, y, w, h);
            }
        } else if self.stroke(style) {
            self.context.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        if self.stroke(style) && self.trace(path) {
            self.context.stroke();
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Drawn {
        if self.fill(style.color()) && self.trace(vertices) {
            self.context.close_path();
            self.context.fill();
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let visible = if fill {
            self.fill(style.color())
        } else {
            self.stroke(style)
        };
        if visible {
            self.context.begin_path();
            self.context
                .arc(
                    f64::from(x),
                    f64::from(y),
                    f64::from(radius),
                    0.0,
                    std::f64::consts::TAU,
                )
                .map_err(|_| DrawingErrorKind::DrawingError(CanvasError))?;
            if fill {
                self.context.fill();
            } else {
                self.context.stroke();
            }
        }
        Ok(())
    }

    /// Text in [`FONT`], placed by the style's anchor (the canvas aligns it),
    /// upright or reading upwards.
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        (x, y): BackendCoord,
    ) -> Drawn {
        if !self.fill(style.color()) {
            return Ok(());
        }
        let anchor = style.anchor();
        self.context.set_text_align(match anchor.h_pos {
            HPos::Left => "left",
            HPos::Center => "center",
            HPos::Right => "right",
        });
        self.context.set_text_baseline(match anchor.v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        let angle = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => std::f64::consts::FRAC_PI_2,
            FontTransform::Rotate180 => std::f64::consts::PI,
            FontTransform::Rotate270 => -std::f64::consts::FRAC_PI_2,
        };
        let drawn = if angle == 0.0 {
            self.context.fill_text(text, f64::from(x), f64::from(y))
        } else {
            self.context.save();
            let _ = self.context.translate(f64::from(x), f64::from(y));
            let _ = self.context.rotate(angle);
            let drawn = self.context.fill_text(text, 0.0, 0.0);
            self.context.restore();
            drawn
        };
        drawn.map_err(|_| DrawingErrorKind::DrawingError(CanvasError))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_written_as_css_hex() {
        let color = |rgb| BackendColor { alpha: 1.0, rgb };
        assert_eq!(css_color(color((0x00, 0x72, 0xB2))), "#0072b2");
        assert_eq!(css_color(color((255, 255, 255))), "#ffffff");
        assert_eq!(css_color(color((0, 0, 0))), "#000000");
    }

    #[test]
    fn lines_along_an_axis_go_through_pixel_centres() {
        assert_eq!(crisp((3, 0), (3, 10)), ((3.5, 0.0), (3.5, 10.0)));
        assert_eq!(crisp((0, 7), (9, 7)), ((0.0, 7.5), (9.0, 7.5)));
        assert_eq!(crisp((0, 0), (4, 4)), ((0.0, 0.0), (4.0, 4.0)));
    }
}
