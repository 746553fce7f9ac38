// The dashboard's charts' axes and colours, shared by its pages' scripts
// (series.js, multiples.js) as window.labChart: tick labels that are never
// cut (SI prefixes, the axis as wide as its widest label), UTC dates on
// the time axis, a fitted value range that keeps a small wobble small.
(function () {
  "use strict";
  // Ten clearly distinct hues (matplotlib's tab10), one a series, in the
  // legend's order: series.go's maxOverlays is as many.
  var colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#d62728", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];
  // FIT: a fitted value axis spans at least this fraction of its values'
  // size, so that a wobble of 0.1% takes at most a hundredth of its height.
  var FIT = 0.1;
  var DAY = 86400;
  function rgba(hex, alpha) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + ", " + ((n >> 8) & 255) + ", " + (n & 255) + ", " + alpha + ")";
  }
  function seconds(time) { return Date.parse(time) / 1000; }
  // printable is text with what does not show as itself, a control or a
  // format character (U+202E reverses the text after it), written as its
  // escape (\u202e), but newline and tab: the lab's one rule
  // (internal/cli's Printable), by which the server writes its pages'
  // text too. Every string of the history a script puts in a page goes
  // through it.
  var hidden = /[\p{Cc}\p{Cf}]/gu;
  var named = {"\x07": "\\a", "\b": "\\b", "\f": "\\f", "\r": "\\r", "\v": "\\v"};
  function hex(n, digits) { return ("0000" + n.toString(16)).slice(-digits); }
  function printable(text) {
    return String(text).replace(hidden, function (c) {
      if (c === "\n" || c === "\t") return c;
      if (named[c]) return named[c];
      if (c.charCodeAt(0) < 0x80) return "\\x" + hex(c.charCodeAt(0), 2);
      var escaped = "";
      for (var i = 0; i < c.length; i++) escaped += "\\u" + hex(c.charCodeAt(i), 4);
      return escaped;
    });
  }

  // Tick labels. SI prefixes (k, M, G, T, P) above a thousand, one prefix
  // for all the labels of an axis, with as many decimals as the step
  // between its ticks needs: 349,700,000 is "349.7 M", never cut.
  var prefixes = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
  var formats = {};
  // MAX_DECIMALS: Intl.NumberFormat's most fraction digits everywhere.
  var MAX_DECIMALS = 20;
  function fixed(v, digits) {
    var f = formats[digits] || (formats[digits] = new Intl.NumberFormat("en", {minimumFractionDigits: digits, maximumFractionDigits: digits}));
    return f.format(v);
  }
  // decimals is how many decimals write every multiple of step exactly:
  // none for 250, one for 2.5, four for 0.0025. uPlot's steps are 1, 2,
  // 2.5 and 5 times a power of ten, so a tick is never rounded to a
  // neighbour's label (157.5 M is not "158 M").
  function decimals(step) {
    for (var d = 0; d < MAX_DECIMALS; d++) {
      var scaled = step * Math.pow(10, d);
      if (Math.abs(scaled - Math.round(scaled)) <= 1e-6 * scaled) return d;
    }
    return MAX_DECIMALS;
  }
  // exact is v written in full, grouped, with as many decimals as the
  // shortest text that reads back as v has (JavaScript's own, String(v)):
  // what a hover says is the value measured, never rounded.
  function exact(v) {
    if (!isFinite(v)) return String(v);
    var m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(v)));
    var digits = m ? (m[2] ? m[2].length : 0) - (m[3] ? Number(m[3]) : 0) : MAX_DECIMALS;
    return fixed(v, Math.max(0, Math.min(MAX_DECIMALS, digits)));
  }
  function si(v) {
    for (var i = 0; i < prefixes.length; i++) if (Math.abs(v) >= prefixes[i][0]) return prefixes[i];
    return [1, ""];
  }
  // siTicks labels the ticks of a linear axis (step apart) or, step 0, of
  // a log axis, each with three significant digits at most.
  function siTicks(ticks, step) {
    var big = 0;
    ticks.forEach(function (v) { if (v != null && isFinite(v)) big = Math.max(big, Math.abs(v)); });
    var p = si(big);
    // Ticks closer than a hundredth of the prefix: the number in full,
    // grouped (349,700,001).
    if (step > 0 && step / p[0] < 0.01) p = [1, ""];
    return ticks.map(function (v) {
      if (v == null) return "";
      var q = step > 0 ? p : si(v), x = v / q[0];
      var digits = step > 0 ? decimals(step / q[0]) : Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x) || 1)));
      var text = fixed(x, digits);
      if (step <= 0) text = text.replace(/\.?0+$/, "");
      return text + (q[1] ? " " + q[1] : "");
    });
  }
  function percentTicks(ticks, step) {
    var digits = step > 0 ? decimals(step) : 1;
    return ticks.map(function (v) { return v == null ? "" : (v > 0 ? "+" : "") + fixed(v, digits) + " %"; });
  }
  function percent(v) { return (v > 0 ? "+" : "") + fixed(v, Math.abs(v) < 10 ? 2 : 1) + " %"; }
  // The step between ticks, as uPlot found it or from the ticks.
  function stepOf(ticks, found) {
    if (found > 0 && isFinite(found)) return found;
    var step = Infinity;
    for (var i = 1; i < ticks.length; i++) step = Math.min(step, Math.abs(ticks[i] - ticks[i - 1]));
    return isFinite(step) && step > 0 ? step : 1;
  }
  // An axis as wide as its widest label, measured in its font, and its
  // ticks and gap: no label is ever cut.
  function axisSize(u, values, i, cycle) {
    var axis = u.axes[i];
    if (cycle > 1) return axis._size; // settled
    var size = axis.ticks.size + axis.gap, widest = 0;
    if (values && values.length) {
      u.ctx.save();
      u.ctx.font = axis.font[0];
      values.forEach(function (v) { widest = Math.max(widest, u.ctx.measureText(v).width); });
      u.ctx.restore();
    }
    return Math.ceil(size + widest / devicePixelRatio) + 2;
  }
  // Time ticks: ISO dates (YYYY-MM-DD, UTC); times (HH:MM) only when the
  // chart shows less than two days.
  var dayIncrs = [DAY, 2 * DAY, 3 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 61 * DAY, 91 * DAY, 182 * DAY, 365 * DAY, 730 * DAY];
  var hourIncrs = [60, 300, 600, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600].concat(dayIncrs);
  function dateTicks(u, ticks, i, space, step) {
    return ticks.map(function (t) {
      var text = new Date(t * 1000).toISOString();
      return step >= DAY ? text.slice(0, 10) : text.slice(0, 16).replace("T", " ");
    });
  }

  // The time axis: ISO dates, never a time of day on a chart of more
  // than two days.
  function timeAxis() {
    return {space: 90, size: axisSize, values: dateTicks,
      incrs: function (u, i, min, max) { return max - min >= 2 * DAY ? dayIncrs : hourIncrs; }};
  }
  // timeRange is the time axis' range of a chart of the times xs: one
  // time a day either side of it (uPlot gives a single time 1000 days, on
  // its left edge: its day in milliseconds, read as seconds), else uPlot's
  // own (the times', or the zoom's).
  function timeRange(xs) {
    return function (u, min, max) { return xs.length === 1 ? [xs[0] - DAY, xs[0] + DAY] : [min, max]; };
  }
  // valueTicks labels a value axis: in % (relative), or SI.
  function valueTicks(relative, log) {
    return function (u, ticks, ai, space, step) {
      return relative ? percentTicks(ticks, stepOf(ticks, step)) : siTicks(ticks, log ? 0 : stepOf(ticks, step));
    };
  }
  function tzDate(ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); }

  // yRange is a value axis' range: from zero (of the values as
  // measured: -100 % in the relative view), or fitted to the values shown
  // and spanning at least FIT of their size, padded by 5%.
  function yRange(v) {
    return function (u, lo, hi) {
      if (lo == null || !isFinite(lo) || !isFinite(hi)) return v.relative ? [-1, 1] : [0, 1];
      if (v.log) {
        var c = Math.sqrt(lo * hi), f = Math.sqrt(1 + FIT);
        return uPlot.rangeLog(Math.min(lo, c / f), Math.max(hi, c * f), 10, false);
      }
      var size = v.relative ? 100 : Math.max(Math.abs(lo), Math.abs(hi));
      if (v.zero) {
        var zero = v.relative ? -100 : 0;
        lo = Math.min(lo, zero);
        hi = Math.max(hi, zero);
      } else if (hi - lo < FIT * size) {
        var mid = (lo + hi) / 2;
        lo = mid - FIT * size / 2;
        hi = mid + FIT * size / 2;
      }
      if (hi === lo) return [lo - 1, hi + 1];
      var pad = 0.05 * (hi - lo);
      return [v.zero && lo === (v.relative ? -100 : 0) ? lo : lo - pad, v.zero && hi === 0 ? hi : hi + pad];
    };
  }

  window.labChart = {colours: colours, FIT: FIT, DAY: DAY, rgba: rgba, seconds: seconds, printable: printable, percent: percent,
    siTicks: siTicks, percentTicks: percentTicks, exact: exact, axisSize: axisSize, timeAxis: timeAxis, timeRange: timeRange, valueTicks: valueTicks, tzDate: tzDate, range: yRange};
})();
