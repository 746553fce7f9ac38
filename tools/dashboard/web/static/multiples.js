// The small multiples page: one figure across benchmarks, a small chart
// each (the page's figures' data-points), every one on the same time
// range, its value axis fitted to its own values (chart.js). Every string
// of the history goes in as text, never as markup.
(function () {
  "use strict";
  var C = window.labChart;
  var figures = Array.prototype.slice.call(document.querySelectorAll("#multiples figure.multiple[data-points]"));
  if (!figures.length) return;
  var width = Math.max(300, figures[0].clientWidth);
  // The server sends at most two points a pixel of a chart's width.
  function points(url) {
    return fetch(url + "&width=" + width, {headers: {Accept: "application/json"}}).then(function (resp) {
      if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
      return resp.json();
    });
  }
  Promise.all(figures.map(function (f) { return points(f.dataset.points); })).then(function (all) {
    var lo = Infinity, hi = -Infinity;
    all.forEach(function (s) {
      s.points.forEach(function (p) { var t = C.seconds(p.time); lo = Math.min(lo, t); hi = Math.max(hi, t); });
    });
    if (lo === hi) { lo -= C.DAY / 2; hi += C.DAY / 2; }
    var colour = C.colours[0];
    // The uPlot instances, for the browser test.
    window.multiplesCharts = all.map(function (s, k) {
      var figure = figures[k];
      var data = [s.points.map(function (p) { return C.seconds(p.time); }), s.points.map(function (p) { return p.median; }),
        s.points.map(function (p) { return p.min; }), s.points.map(function (p) { return p.max; })];
      // Where each alert's change came in: a dashed line in its state's
      // colour (tools/alert's rules, from the server).
      function drawMarkers(u) {
        var ctx = u.ctx;
        ctx.save();
        ctx.lineWidth = devicePixelRatio;
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        s.markers.forEach(function (m) {
          var x = u.valToPos(C.seconds(m.to_time), "x", true);
          ctx.strokeStyle = m.colour || "#b00020";
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
        });
        ctx.restore();
      }
      var u = new uPlot({
        width: width,
        height: 200,
        // Room on the right for the last date's label.
        padding: [10, 40, 0, 0],
        legend: {show: false},
        tzDate: C.tzDate,
        cursor: {show: false},
        scales: {x: {time: true, range: function () { return [lo, hi]; }}, y: {range: C.range({})}},
        series: [{}, {stroke: colour, width: 2, points: {show: true, size: 4, fill: colour}},
          {stroke: C.rgba(colour, 0.35), width: 1, points: {show: false}},
          {stroke: C.rgba(colour, 0.35), width: 1, points: {show: false}}],
        bands: [{series: [3, 2], fill: C.rgba(colour, 0.15)}],
        axes: [C.timeAxis(), {size: C.axisSize, values: C.valueTicks(false, false)}],
        hooks: {drawClear: [drawMarkers]},
      }, data, figure.querySelector(".chart"));
      var n = s.points.length, alerts = s.markers.length;
      figure.querySelector(".count").textContent = n + (n === 1 ? " point" : " points") + (n < s.total ? " of " + s.total : "") +
        (alerts ? ", " + alerts + (alerts === 1 ? " alert" : " alerts") : "");
      return u;
    });
  }).catch(function (err) {
    var p = document.createElement("p");
    p.className = "error";
    p.textContent = "The points could not be read: " + err.message;
    document.getElementById("multiples").before(p);
  });
})();
