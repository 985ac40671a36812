//! The colours of the pictures: a sequential scale for indices, a cycle of distinct pastels for
//! threads, a hue wheel for the 32 banks. Labels are dark unless the fill is dark.

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`.
    pub(crate) fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// Whether dark text would be hard to read on it (white text is used then): relative
    /// luminance (sRGB, linearised) below 0.18, where white and black give about the same contrast.
    pub(crate) fn is_dark(self) -> bool {
        let lin = |c: u8| {
            let c = c as f64 / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2) < 0.18
    }
}

/// HSL (hue in degrees, saturation and lightness in `0..=1`) to sRGB.
pub(crate) fn hsl(hue: f64, sat: f64, light: f64) -> Rgb {
    let c = (1.0 - (2.0 * light - 1.0).abs()) * sat;
    let h = hue.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = light - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    Rgb(byte(r), byte(g), byte(b))
}

/// Stops of the index scale, dark violet through blue and green to yellow: perceptually ordered,
/// readable by the colour-blind, and dark-to-light so that order shows even in grey.
const INDEX_STOPS: [Rgb; 5] = [Rgb(68, 1, 84), Rgb(59, 82, 139), Rgb(33, 145, 140), Rgb(94, 201, 98), Rgb(253, 231, 37)];

/// The colour at position `t` in `0..=1` of the index scale.
pub(crate) fn index_scale(t: f64) -> Rgb {
    let t = t.clamp(0.0, 1.0) * (INDEX_STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(INDEX_STOPS.len() - 2);
    let f = t - i as f64;
    let (a, b) = (INDEX_STOPS[i], INDEX_STOPS[i + 1]);
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// How many thread colours there are; thread `t` has colour `t mod THREAD_COLOURS`. Eight, as in
/// CuTe's pictures: it divides the warp, so threads `t` and `t + 8` line up in the usual layouts.
pub(crate) const THREAD_COLOURS: i64 = 8;

/// The colour of thread class `j` (`0..THREAD_COLOURS`): pastel hues 135 degrees apart from one
/// thread to the next, so that neighbouring threads never look alike.
pub(crate) fn thread_colour(j: i64) -> Rgb {
    hsl((j * 3).rem_euclid(THREAD_COLOURS) as f64 * 360.0 / THREAD_COLOURS as f64 + 10.0, 0.75, 0.78)
}

/// The colour of bank `b` (`0..32`): a hue wheel, so that a row that meets every bank once is a
/// full rainbow and a repeated bank stands out as a repeated colour.
pub(crate) fn bank_colour(b: i64) -> Rgb {
    hsl(b as f64 * 360.0 / 32.0, 0.8, 0.76)
}
