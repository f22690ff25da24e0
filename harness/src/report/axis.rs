//! A value axis of a figure: its scale (linear, log2, log10), its padded range and its ticks. A swept
//! parameter's axis has its ticks at the swept values (a log2 axis when they are powers of two, so
//! 512, 1024, 2048 sit evenly and are labelled as swept, not at 600 / 800); a measured axis has ticks
//! at 1, 2 or 5 times a power of ten.

use super::number_format::plain_number;

/// How values map onto the axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisScale {
    Linear,
    Log2,
    Log10,
}

/// Values spanning this ratio or more (and not all powers of two) get a log10 axis.
const LOG10_RATIO: f64 = 10.0;

/// More swept values than this are labelled every other one (or sparser), so labels never overlap.
const MOST_TICKS: usize = 12;

/// An axis from `low` to `high` (padded past the data) with its ticks and their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub scale: AxisScale,
    low: f64,
    high: f64,
    ticks: Vec<(f64, String)>,
}

impl Axis {
    /// The axis of a swept parameter: ticks at its values; log2 when every value is a positive power of
    /// two, log10 when positive values span a decade or more, else linear. None for fewer than two values.
    pub fn at_values(values: &[f64]) -> Option<Axis> {
        let mut values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let (&low, &high) = (values.first()?, values.last()?);
        if low == high {
            return None;
        }
        let positive = low > 0.0;
        let scale = if positive && values.iter().all(|v| v.log2().fract() == 0.0) {
            AxisScale::Log2
        } else if positive && high / low >= LOG10_RATIO {
            AxisScale::Log10
        } else {
            AxisScale::Linear
        };
        let every = values.len().div_ceil(MOST_TICKS);
        let ticks = values.iter().step_by(every).map(|v| (*v, plain_number(*v))).collect();
        let mut axis = Axis { scale, low, high, ticks };
        axis.pad(0.06);
        Some(axis)
    }

    /// A linear axis over the finite `values` (padded), ticked at 1, 2 or 5 times a power of ten (about six
    /// ticks); None without a finite value.
    pub fn linear(values: impl IntoIterator<Item = f64>) -> Option<Axis> {
        let values: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
        let low = values.iter().copied().reduce(f64::min)?;
        let high = values.iter().copied().reduce(f64::max)?;
        let span = (high - low).max(high.abs().max(1.0) * 1e-3);
        let mut axis = Axis { scale: AxisScale::Linear, low, high: low + span, ticks: Vec::new() };
        axis.pad(0.06);
        let rough = (axis.high - axis.low) / 6.0;
        let power = 10f64.powf(rough.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= rough).unwrap_or(10.0 * power);
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        let mut tick = (axis.low / step).ceil() * step;
        while tick <= axis.high {
            // A tick at zero reached by steps from below prints as 0, not -0.
            let shown = if tick.abs() < step * 1e-9 { 0.0 } else { tick };
            axis.ticks.push((shown, format!("{shown:.decimals$}")));
            tick += step;
        }
        Some(axis)
    }

    /// Widens the range by `share` of it at each end (a factor on a log axis), so no mark sits on the frame.
    fn pad(&mut self, share: f64) {
        match self.scale {
            AxisScale::Linear => {
                let pad = (self.high - self.low) * share;
                (self.low, self.high) = (self.low - pad, self.high + pad);
            }
            AxisScale::Log2 | AxisScale::Log10 => {
                let factor = (self.high / self.low).powf(share);
                (self.low, self.high) = (self.low / factor, self.high * factor);
            }
        }
    }

    /// Where `value` lies along the axis: 0 at the low end, 1 at the high end.
    pub fn fraction(&self, value: f64) -> f64 {
        let at = |v: f64| match self.scale {
            AxisScale::Linear => v,
            AxisScale::Log2 => v.log2(),
            AxisScale::Log10 => v.log10(),
        };
        (at(value) - at(self.low)) / (at(self.high) - at(self.low))
    }

    /// The ticks: value and label.
    pub fn ticks(&self) -> &[(f64, String)] {
        &self.ticks
    }

    /// `rows (log2 scale)`: the axis title with the scale named when it is not linear.
    pub fn title(&self, name: &str) -> String {
        match self.scale {
            AxisScale::Linear => name.to_string(),
            AxisScale::Log2 => format!("{name} (log2 scale)"),
            AxisScale::Log10 => format!("{name} (log scale)"),
        }
    }

    /// `count` values spread evenly along the axis between `from` and `to` (a fitted line's samples).
    pub fn samples(&self, from: f64, to: f64, count: usize) -> Vec<f64> {
        let linear = self.scale == AxisScale::Linear;
        let fractions = (0..count).map(|i| i as f64 / (count - 1) as f64);
        fractions.map(|t| if linear { from + (to - from) * t } else { from * (to / from).powf(t) }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(axis: &Axis) -> Vec<&str> {
        axis.ticks().iter().map(|(_, label)| label.as_str()).collect()
    }

    #[test]
    fn powers_of_two_get_a_log2_axis_ticked_at_the_swept_values() {
        let axis = Axis::at_values(&[2048.0, 512.0, 1024.0, 4096.0]).unwrap();
        assert_eq!(axis.scale, AxisScale::Log2);
        assert_eq!(labels(&axis), ["512", "1024", "2048", "4096"]);
        let spacing: Vec<f64> =
            [512.0, 1024.0, 2048.0].iter().map(|v| axis.fraction(v * 2.0) - axis.fraction(*v)).collect();
        assert!(spacing.windows(2).all(|pair| (pair[0] - pair[1]).abs() < 1e-12), "evenly spaced: {spacing:?}");
        assert!(axis.fraction(512.0) > 0.0 && axis.fraction(4096.0) < 1.0, "padded off the frame");
        assert_eq!(axis.title("rows"), "rows (log2 scale)");
    }

    #[test]
    fn other_swept_values_are_ticked_where_they_are() {
        let decades = Axis::at_values(&[10.0, 100.0, 1000.0, 3000.0]).unwrap();
        assert_eq!((decades.scale, labels(&decades)), (AxisScale::Log10, vec!["10", "100", "1000", "3000"]));
        let linear = Axis::at_values(&[0.5, 1.0, 1.5]).unwrap();
        assert_eq!((linear.scale, labels(&linear)), (AxisScale::Linear, vec!["0.5000", "1", "1.500"]));
        assert!(Axis::at_values(&[4.0, 4.0]).is_none());
        let many: Vec<f64> = (1..=30).map(f64::from).collect();
        assert!(Axis::at_values(&many).unwrap().ticks().len() <= MOST_TICKS);
    }

    #[test]
    fn a_measured_axis_ticks_at_round_numbers() {
        let axis = Axis::linear([0.95, 1.06]).unwrap();
        assert!(labels(&axis).contains(&"1.00"), "{:?}", labels(&axis));
        let symmetric = labels(&Axis::linear([-1.0, 1.0]).unwrap()).join(" ");
        assert!(symmetric.contains(" 0.0 ") && !symmetric.contains("-0.0"), "0, not -0: {symmetric}");
    }
}
