// The series page: the pickers reload the page on a change, and the chart
// draws the points that /api/series gives: the chosen series (the URL is
// the figure's data-points) and those kept on the chart (each overlay's
// data-points), on one time axis, a second value axis for a second unit.
// Each series' alerts of a change (regression, change point) are drawn
// as their commit range, coloured by state; a click on a point opens its
// night. Every string of the history goes in as text, never as markup.
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
  var colours = ["#00add8", "#ce3262", "#5dc9e2", "#fdb515", "#555", "#1b7f2a", "#8e44ad", "#e67e22"];
  function when(seconds) { return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC"; }
  function element(tag, text, className) {
    var e = document.createElement(tag);
    if (text != null) e.textContent = text;
    if (className) e.className = className;
    return e;
  }
  function line(text, className) { return element("div", text, className); }
  // A link to one of the dashboard's own pages: the server makes every
  // address from validated names; anything else gets no href.
  function anchor(text, href) {
    var a = element("a", text);
    if (/^\/(?![\/\\])/.test(href)) a.href = href;
    return a;
  }
  function rgba(hex, alpha) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + ", " + ((n >> 8) & 255) + ", " + (n & 255) + ", " + alpha + ")";
  }
  function seconds(time) { return Date.parse(time) / 1000; }

  function draw(all) {
    var several = all.length > 1;
    var units = [];
    all.forEach(function (s) { if (units.indexOf(s.unit) < 0) units.push(s.unit); });
    // One table per series, joined on the union of their times: a series
    // without a point at a time has null there.
    var data = uPlot.join(all.map(function (s) {
      return [s.points.map(function (p) { return seconds(p.time); }),
        s.points.map(function (p) { return p.median; }),
        s.points.map(function (p) { return p.min; }),
        s.points.map(function (p) { return p.max; })];
    }));
    var xs = data[0];
    // at[k][i] is series k's point at xs[i], or undefined.
    var at = all.map(function (s) {
      var byTime = {};
      s.points.forEach(function (p) { byTime[seconds(p.time)] = p; });
      return xs.map(function (x) { return byTime[x]; });
    });
    var series = [{}], bands = [];
    all.forEach(function (s, k) {
      var colour = colours[k % colours.length], scale = s.unit, name = several ? s.name + " " : "";
      series.push({label: name + "median", scale: scale, stroke: colour, width: 2, spanGaps: true,
        points: {show: true, size: 6, fill: colour}});
      series.push({label: name + "min", scale: scale, stroke: rgba(colour, 0.35), width: 1, spanGaps: true, points: {show: false}});
      series.push({label: name + "max", scale: scale, stroke: rgba(colour, 0.35), width: 1, spanGaps: true, points: {show: false}});
      bands.push({series: [3 * k + 3, 3 * k + 2], fill: rgba(colour, 0.15)});
    });
    var scales = {x: {time: true}};
    var axes = [{}];
    units.forEach(function (unit, i) {
      scales[unit] = {};
      axes.push({scale: unit, side: i === 0 ? 3 : 1, size: 80, label: several ? unit : undefined,
        grid: {show: i === 0},
        values: function (u, splits) { return splits.map(function (v) { return number.format(v); }); }});
    });
    // The alerts' ranges, drawn under the points: a band from the commit
    // before the change to the one that brought it, a line at the latter.
    var markers = [];
    all.forEach(function (s, k) {
      s.markers.forEach(function (m) { markers.push({series: k, name: s.name, unit: s.unit, alert: m}); });
    });
    function drawMarkers(u) {
      var ctx = u.ctx;
      ctx.save();
      markers.forEach(function (m) {
        // The state's colour is the server's (tools/alert's rules).
        var colour = m.alert.colour || "#b00020";
        var to = u.valToPos(seconds(m.alert.to_time), "x", true);
        var from = m.alert.from_time && seconds(m.alert.from_time) > 0 ? u.valToPos(seconds(m.alert.from_time), "x", true) : to;
        ctx.fillStyle = rgba(colour, 0.12);
        ctx.fillRect(Math.min(from, to), u.bbox.top, Math.abs(to - from), u.bbox.height);
        ctx.strokeStyle = colour;
        ctx.lineWidth = 2 * devicePixelRatio;
        ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(to, u.bbox.top);
        ctx.lineTo(to, u.bbox.top + u.bbox.height);
        ctx.stroke();
      });
      ctx.restore();
    }
    // The point the cursor is on: the first series with one at its time.
    function pointAt(i) {
      for (var k = 0; k < all.length; k++) if (at[k][i]) return {series: k, point: at[k][i]};
      return null;
    }
    var opts = {
      width: Math.max(400, figure.clientWidth),
      height: 360,
      legend: {show: false},
      cursor: {drag: {x: true, y: false}},
      scales: scales,
      series: series,
      bands: bands,
      axes: axes,
      hooks: {
        drawClear: [drawMarkers],
        setCursor: [function (u) {
          var i = u.cursor.idx;
          if (i == null || u.cursor.left < 0 || !pointAt(i)) {
            tip.hidden = true;
            return;
          }
          var lines = [];
          all.forEach(function (s, k) {
            var p = at[k][i];
            if (!p) return;
            var unit = " " + s.unit;
            if (several) lines.push(line(s.name, "name"));
            lines.push(line(p.commit + (p.dirty ? " (dirty)" : ""), "commit"),
              line("median " + number.format(p.median) + unit),
              line("min–max " + number.format(p.min) + "–" + number.format(p.max) + unit + " (" + p.runs + " runs)"));
          });
          lines.splice(several ? 0 : 1, 0, line(when(xs[i])));
          tip.replaceChildren.apply(tip, lines);
          tip.hidden = false;
          var first = pointAt(i);
          var x = u.valToPos(xs[i], "x"), y = u.valToPos(first.point.median, all[first.series].unit);
          var left = x < u.over.clientWidth / 2 ? x + 12 : x - 12 - tip.offsetWidth;
          tip.style.left = (u.over.offsetLeft + left) + "px";
          tip.style.top = (u.over.offsetTop + Math.max(0, y - tip.offsetHeight / 2)) + "px";
        }],
      },
    };
    // The uPlot instance and the alerts it marks, for the browser test.
    window.seriesChart = new uPlot(opts, data, figure.querySelector(".chart"));
    window.seriesMarkers = markers;

    // A click on a point opens its night: the compare page of its commit
    // against the series' night before it, the night's report and the
    // flame graphs of its result's profiles, from the archive.
    var night = document.getElementById("night");
    window.seriesChart.over.addEventListener("click", function () {
      var u = window.seriesChart, i = u.cursor.idx;
      if (i == null || !pointAt(i) || u.select.width > 0) return;
      var lines = [element("h2", "The night of " + when(xs[i]))];
      all.forEach(function (s, k) {
        var p = at[k][i];
        if (!p) return;
        var div = line(null, "night-series");
        div.appendChild(element("span", s.name + " at ", null));
        div.appendChild(element("code", p.commit, "commit"));
        if (p.compare) {
          div.appendChild(document.createTextNode(": "));
          div.appendChild(anchor("compare with the night before", p.compare)).className = "compare";
        } else {
          div.appendChild(document.createTextNode(": the series' first night"));
        }
        // The addresses come from the server, made of validated names;
        // they go in as href, never as markup.
        if (p.report) {
          div.appendChild(document.createTextNode("; "));
          div.appendChild(anchor("the night's report", p.report)).className = "report";
        } else {
          div.appendChild(document.createTextNode("; not ingested from the nightly job's archive: no report kept with it"));
        }
        if (p.profiles && p.profiles.length) {
          div.appendChild(document.createTextNode("; flame graph of its profile: "));
          p.profiles.forEach(function (prof, j) {
            if (j > 0) div.appendChild(document.createTextNode(", "));
            var a = div.appendChild(anchor(prof.kind, prof.flamegraph));
            a.className = "flamegraph";
            a.dataset.kind = prof.kind;
          });
        } else if (p.report) {
          div.appendChild(document.createTextNode("; its result keeps no profile"));
        }
        lines.push(div);
      });
      night.replaceChildren.apply(night, lines);
      night.hidden = false;
    });

    var list = document.getElementById("markers");
    markers.forEach(function (m) {
      var li = element("li", null, "marker " + m.alert.state);
      li.appendChild(anchor("alert " + m.alert.id, m.alert.page));
      li.appendChild(document.createTextNode(" " + m.alert.state + ", " + m.alert.kind + " " + m.alert.change + " of " + m.name +
        ", commits " + m.alert.from.slice(0, 12) + ".." + m.alert.to.slice(0, 12)));
      list.appendChild(li);
    });
    var count = all.reduce(function (n, s) { return n + s.points.length; }, 0);
    var total = all.reduce(function (n, s) { return n + s.total; }, 0);
    figure.querySelector(".count").textContent = count + (count === 1 ? " point" : " points") +
      (count < total ? " of " + total : "") +
      (several ? " in " + all.length + " series" : "") + ", " + markers.length + (markers.length === 1 ? " alert." : " alerts.") +
      (count < total ? " The chart is narrower than the series: of each stretch of time only its lowest and highest medians " +
        "are drawn (a spike stays)." : "");
  }

  // The server sends at most two points a pixel of the chart's width.
  function points(url) {
    url += "&width=" + Math.max(400, figure.clientWidth);
    return fetch(url, {headers: {Accept: "application/json"}}).then(function (resp) {
      if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
      return resp.json();
    });
  }
  var urls = [figure.dataset.points];
  Array.prototype.forEach.call(document.querySelectorAll("#overlays li[data-points]"), function (li) { urls.push(li.dataset.points); });
  Promise.all(urls.map(points))
    .then(draw)
    .catch(function (err) {
      figure.querySelector(".count").textContent = "The points could not be read: " + err.message;
    });
})();
