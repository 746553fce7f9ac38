// The series page: the pickers reload the page on a change, and the chart
// draws the points that /api/series gives (the URL is the figure's
// data-points). Every string of the history goes in as text, never as
// markup.
(function () {
  "use strict";
  var form = document.getElementById("pick");
  if (form) {
    var selects = Array.prototype.slice.call(form.querySelectorAll("select"));
    selects.forEach(function (select, i) {
      select.addEventListener("change", function () {
        // The choices after this one may not exist under it: the server
        // picks them again.
        selects.slice(i + 1).forEach(function (later) { later.disabled = true; });
        form.submit();
      });
    });
  }

  var figure = document.getElementById("series-chart");
  if (!figure) return;
  var tip = figure.querySelector(".tooltip");
  var number = new Intl.NumberFormat("en", {maximumFractionDigits: 4});
  function when(seconds) { return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC"; }
  function line(text, className) {
    var div = document.createElement("div");
    div.textContent = text;
    if (className) div.className = className;
    return div;
  }

  function draw(series) {
    var points = series.points;
    var xs = points.map(function (p) { return Date.parse(p.time) / 1000; });
    var median = points.map(function (p) { return p.median; });
    var lo = points.map(function (p) { return p.min; });
    var hi = points.map(function (p) { return p.max; });
    var unit = " " + series.unit;
    var stroke = "#00add8", spread = "rgba(0, 173, 216, 0.35)";
    var opts = {
      width: Math.max(400, figure.clientWidth),
      height: 360,
      legend: {show: false},
      cursor: {drag: {x: true, y: false}},
      scales: {x: {time: true}},
      series: [
        {},
        {label: "median", stroke: stroke, width: 2, points: {show: true, size: 6, fill: stroke}},
        {label: "min", stroke: spread, width: 1, points: {show: false}},
        {label: "max", stroke: spread, width: 1, points: {show: false}},
      ],
      bands: [{series: [3, 2], fill: "rgba(0, 173, 216, 0.15)"}],
      axes: [{}, {size: 80, values: function (u, splits) { return splits.map(function (v) { return number.format(v); }); }}],
      hooks: {setCursor: [function (u) {
        var i = u.cursor.idx;
        if (i == null || u.cursor.left < 0) {
          tip.hidden = true;
          return;
        }
        var p = points[i];
        tip.replaceChildren(
          line(p.commit + (p.dirty ? " (dirty)" : ""), "commit"),
          line(when(xs[i])),
          line("median " + number.format(p.median) + unit),
          line("min–max " + number.format(p.min) + "–" + number.format(p.max) + unit + " (" + p.runs + " runs)"));
        tip.hidden = false;
        var x = u.valToPos(xs[i], "x"), y = u.valToPos(p.median, "y");
        var left = x < u.over.clientWidth / 2 ? x + 12 : x - 12 - tip.offsetWidth;
        tip.style.left = (u.over.offsetLeft + left) + "px";
        tip.style.top = (u.over.offsetTop + Math.max(0, y - tip.offsetHeight / 2)) + "px";
      }]},
    };
    // The uPlot instance, for the browser test.
    window.seriesChart = new uPlot(opts, [xs, median, lo, hi], figure.querySelector(".chart"));
    figure.querySelector(".count").textContent = points.length < series.total
      ? points.length + " points of " + series.total + ": the chart is narrower than the series, so of each stretch of time " +
        "only its lowest and highest medians are drawn (a spike stays)."
      : points.length + (points.length === 1 ? " point." : " points.");
  }

  // The server sends at most two points a pixel of the chart's width.
  fetch(figure.dataset.points + "&width=" + Math.max(400, figure.clientWidth), {headers: {Accept: "application/json"}})
    .then(function (resp) {
      if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
      return resp.json();
    })
    .then(draw)
    .catch(function (err) {
      figure.querySelector(".count").textContent = "The points could not be read: " + err.message;
    });
})();
