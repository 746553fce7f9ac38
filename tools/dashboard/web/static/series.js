// The series page: the pickers reload the page on a change, and the chart
// draws the points that /api/series gives: the chosen series (the first of
// the legend) and those kept on the chart (the legend's others), on one
// time axis, a second value axis for a second unit. Each series' alerts of
// a change (regression, change point) are drawn as their commit range,
// coloured by state; a click on a point opens its night.
//
// How the chart is drawn is the page's address, kept with
// history.replaceState and read back on load: view=relative (percent from
// the reference night ref, by default each series' first point), y=zero
// (the value axis from zero; by default fitted), scale=log, and the zoom
// from=/to= (ISO times). Every string of the history goes in as text,
// never as markup.
(function () {
  "use strict";
  // The keys of the address that say how the chart is drawn (series.go's
  // viewParams: a redirect carries them on).
  var viewKeys = ["view", "ref", "y", "scale", "from", "to"];
  var address = new URLSearchParams(location.search);
  var state = {};
  viewKeys.forEach(function (k) { state[k] = address.get(k) || ""; });
  // What the page cannot read is its default.
  if (state.view !== "relative") state.view = "";
  if (state.y !== "zero") state.y = "";
  if (state.scale !== "log") state.scale = "";
  ["ref", "from", "to"].forEach(function (k) { if (isNaN(Date.parse(state[k]))) state[k] = ""; });

  // carry adds the chart's state to a form as it is sent: picking another
  // series keeps how it is drawn.
  function carry(form) {
    viewKeys.forEach(function (k) {
      var old = form.querySelector("input[type=hidden][name=" + k + "]");
      if (old) old.remove();
      if (!state[k]) return;
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = k;
      input.value = state[k];
      form.appendChild(input);
    });
  }
  var form = document.getElementById("pick");
  if (form) {
    var selects = Array.prototype.slice.call(form.querySelectorAll("select"));
    selects.forEach(function (select, i) {
      select.addEventListener("change", function () {
        // The choices after this one may not exist under it: the server
        // picks them again.
        selects.slice(i + 1).forEach(function (later) { later.disabled = true; });
        carry(form);
        form.submit();
      });
    });
  }
  var keep = document.getElementById("keep");
  if (keep) keep.addEventListener("submit", function () { carry(keep); });

  var figure = document.getElementById("series-chart");
  if (!figure) return;
  var tip = figure.querySelector(".tooltip");
  function when(seconds) { return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC"; }
  function iso(seconds) { return new Date(Math.round(seconds) * 1000).toISOString().replace(".000Z", "Z"); }
  function element(tag, text, className) {
    var e = document.createElement(tag);
    if (text != null) e.textContent = C.printable(text);
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
  var C = window.labChart, colours = C.colours, rgba = C.rgba, seconds = C.seconds, percent = C.percent, exact = C.exact;

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
    // A log scale needs every value above zero.
    var positive = all.every(function (s) { return s.points.every(function (p) { return p.min > 0; }); });

    // The legend: every series, the chosen one first, in its colour.
    Array.prototype.forEach.call(document.querySelectorAll("#legend li[data-points]"), function (li, k) {
      var colour = colours[k % colours.length];
      li.dataset.colour = colour;
      var swatch = li.querySelector(".swatch");
      if (swatch) swatch.style.backgroundColor = colour;
    });

    // The reference of the relative view: each series' point at the
    // reference night, or its first after it; by default its first.
    function references() {
      var ref = state.ref ? seconds(state.ref) : -Infinity;
      return all.map(function (s) {
        var p = s.points.find(function (p) { return seconds(p.time) >= ref; }) || s.points[s.points.length - 1];
        return p && p.median !== 0 ? p : null;
      });
    }
    function view() {
      var relative = state.view === "relative";
      return {relative: relative, log: state.scale === "log" && !relative && positive, zero: state.y === "zero"};
    }

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

    // save writes the state into the address, leaving out each default.
    function save() {
      var q = new URLSearchParams(location.search);
      viewKeys.forEach(function (k) { if (state[k]) q.set(k, state[k]); else q.delete(k); });
      history.replaceState(null, "", "?" + q.toString());
      // Taking a series off the chart keeps how it is drawn.
      Array.prototype.forEach.call(document.querySelectorAll("#legend a.remove"), function (a) {
        var url = new URL(a.href);
        viewKeys.forEach(function (k) { if (state[k]) url.searchParams.set(k, state[k]); else url.searchParams.delete(k); });
        a.href = url.pathname + url.search;
      });
    }

    var chart = figure.querySelector(".chart");
    function build() {
      var v = view(), refs = v.relative ? references() : null;
      var rel = function (k, x) { return x == null || !refs[k] ? null : (x / refs[k].median - 1) * 100; };
      var table = [xs];
      var series = [{}], bands = [];
      all.forEach(function (s, k) {
        var colour = colours[k % colours.length], scale = v.relative ? "%" : s.unit, name = several ? s.name + " " : "";
        for (var j = 1; j <= 3; j++) {
          var column = data[3 * k + j];
          table.push(v.relative ? column.map(function (x) { return rel(k, x); }) : column);
        }
        series.push({label: name + "median", scale: scale, stroke: colour, width: 2, spanGaps: true,
          points: {show: true, size: 6, fill: colour}});
        series.push({label: name + "min", scale: scale, stroke: rgba(colour, 0.35), width: 1, spanGaps: true, points: {show: false}});
        series.push({label: name + "max", scale: scale, stroke: rgba(colour, 0.35), width: 1, spanGaps: true, points: {show: false}});
        bands.push({series: [3 * k + 3, 3 * k + 2], fill: rgba(colour, 0.15)});
      });
      var scales = {x: {time: true, range: C.timeRange(xs)}};
      var axes = [C.timeAxis()];
      (v.relative ? ["%"] : units).forEach(function (unit, i) {
        scales[unit] = v.log ? {distr: 3, log: 10, range: C.range(v)} : {range: C.range(v)};
        var label = v.relative ? "% from the reference" : unit;
        axes.push({scale: unit, side: i === 0 ? 3 : 1, size: C.axisSize, label: C.printable(label), labelSize: 20, grid: {show: i === 0},
          values: C.valueTicks(v.relative, v.log)});
      });
      // Zoom: restored from the address once the chart is drawn, kept in it
      // on every zoom after (a double click shows the whole series).
      var restore = state.from || state.to ? {min: state.from ? seconds(state.from) : xs[0], max: state.to ? seconds(state.to) : xs[xs.length - 1]} : null;
      var opts = {
        width: Math.max(400, figure.clientWidth),
        height: 360,
        legend: {show: false},
        // Without a value axis on the right, room there for the last
        // date's label.
        padding: [10, axes.length > 2 ? null : 40, null, null],
        tzDate: C.tzDate,
        cursor: {drag: {x: true, y: false}},
        scales: scales,
        series: series,
        bands: bands,
        axes: axes,
        hooks: {
          drawClear: [drawMarkers],
          setScale: [function (u, key) {
            if (key !== "x") return;
            var min = u.scales.x.min, max = u.scales.x.max;
            if (restore) {
              if (Math.abs(min - restore.min) > 1 || Math.abs(max - restore.max) > 1) return; // the first draw's, before the zoom
              restore = null;
            }
            var whole = min <= xs[0] && max >= xs[xs.length - 1];
            state.from = whole ? "" : iso(min);
            state.to = whole ? "" : iso(max);
            save();
          }],
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
                line("median " + exact(p.median) + unit),
                line("min–max " + exact(p.min) + "–" + exact(p.max) + unit + " (" + p.runs + " runs)"));
              if (v.relative && refs[k]) lines.push(line(percent(rel(k, p.median)) + " from the reference, " + refs[k].commit.slice(0, 12)));
            });
            lines.splice(several ? 0 : 1, 0, line(when(xs[i])));
            tip.replaceChildren.apply(tip, lines);
            tip.hidden = false;
            var first = pointAt(i);
            var x = u.valToPos(xs[i], "x"), y = u.valToPos(u.data[1 + 3 * first.series][i], u.series[1 + 3 * first.series].scale);
            var left = x < u.over.clientWidth / 2 ? x + 12 : x - 12 - tip.offsetWidth;
            tip.style.left = (u.over.offsetLeft + left) + "px";
            tip.style.top = (u.over.offsetTop + Math.max(0, y - tip.offsetHeight / 2)) + "px";
          }],
        },
      };
      if (window.seriesChart) window.seriesChart.destroy();
      // The uPlot instance and the alerts it marks, for the browser test.
      var u = window.seriesChart = new uPlot(opts, table, chart);
      window.seriesMarkers = markers;
      if (restore) u.setScale("x", restore);
      u.over.addEventListener("click", function () { openNight(u); });
    }

    // The view's controls: each change redraws the chart and is kept in
    // the address.
    var controls = document.getElementById("view");
    function showControls() {
      var v = view();
      controls.querySelector("select[name=view]").value = v.relative ? "relative" : "absolute";
      controls.querySelector("select[name=y]").value = v.zero ? "zero" : "fitted";
      var scale = controls.querySelector("select[name=scale]");
      scale.value = v.log ? "log" : "linear";
      scale.disabled = v.relative || !positive;
      scale.title = v.relative ? "the relative view is linear" : positive ? "" : "a value at or below zero has no logarithm";
      controls.querySelector("#reference").textContent = !v.relative ? "" : state.ref ?
        "The reference: each series' point of " + when(seconds(state.ref)) + ", or its first after it." :
        "The reference: each series' first point; click a point for its night to choose another.";
    }
    if (controls) {
      controls.hidden = false;
      ["view", "y", "scale"].forEach(function (k) {
        controls.querySelector("select[name=" + k + "]").addEventListener("change", function (e) {
          var value = e.target.value;
          state[k] = value === "absolute" || value === "fitted" || value === "linear" ? "" : value;
          save();
          showControls();
          build();
        });
      });
      controls.querySelector("#whole-series").addEventListener("click", function () {
        window.seriesChart.setScale("x", {min: xs[0], max: xs[xs.length - 1]});
      });
      showControls();
    }

    // A click on a point opens its night: the compare page of its commit
    // against the series' night before it, the night's report and the
    // flame graphs of its result's profiles, from the archive.
    var night = document.getElementById("night");
    function openNight(u) {
      var i = u.cursor.idx;
      if (i == null || !pointAt(i) || u.select.width > 0) return;
      var lines = [element("h2", "The night of " + when(xs[i]))];
      var reference = element("button", "Show the series relative to this night", "reference");
      reference.type = "button";
      reference.addEventListener("click", function () {
        state.view = "relative";
        state.ref = iso(xs[i]);
        save();
        if (controls) showControls();
        build();
      });
      lines.push(reference);
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
    }
    build();

    var list = document.getElementById("markers");
    markers.forEach(function (m) {
      var li = element("li", null, "marker " + m.alert.state);
      li.appendChild(anchor("alert " + m.alert.id, m.alert.page));
      li.appendChild(document.createTextNode(C.printable(" " + m.alert.state + ", " + m.alert.kind + " " + m.alert.change + " of " + m.name +
        ", commits " + m.alert.from.slice(0, 12) + ".." + m.alert.to.slice(0, 12))));
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
  var urls = Array.prototype.map.call(document.querySelectorAll("#legend li[data-points]"), function (li) { return li.dataset.points; });
  Promise.all(urls.map(points))
    .then(draw)
    .catch(function (err) {
      figure.querySelector(".count").textContent = "The points could not be read: " + err.message;
    });
})();
