(function () {
  // The charts' data, which the page carries as JSON.
  var charts = JSON.parse(document.getElementById("trend-data").textContent);
  // The uPlot instances by figure id, for the browser test.
  var drawn = window.trendCharts = {};
  // Every digit a count has: a change of 0.01% in 169 million instructions shows.
  var number = new Intl.NumberFormat("en", {maximumFractionDigits: 4});
  // An axis's labels carry as many digits as its ticks' step needs, so
  // that ticks 0.001% apart do not all read "169M".
  function axisLabels(splits) {
    var step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) : 0;
    var top = Math.max.apply(null, splits.map(Math.abs));
    var digits = step > 0 && top > 0 ? Math.ceil(Math.log10(top / step)) + 1 : 3;
    var f = new Intl.NumberFormat("en", {notation: "compact", maximumSignificantDigits: Math.min(Math.max(digits, 2), 12)});
    return splits.map(function (v) { return f.format(v); });
  }
  // A commit as people quote it: 12 characters, as gitwork.Short cuts it.
  function short(commit) { return commit.length > 12 ? commit.slice(0, 12) : commit; }
  function day(ms) { return new Date(ms).toISOString().slice(5, 10); }
  // Nights are a day apart; runs of one day are told apart by their time.
  function dayOrTime(times, i) {
    var d = day(times[i]);
    var sameDay = times.some(function (t, j) { return j !== i && day(t) === d; });
    return sameDay ? d + " " + new Date(times[i]).toISOString().slice(11, 16) : d;
  }
  function when(ms) { return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC"; }
  function percent(x) { return (x > 0 ? "+" : "") + (100 * x).toFixed(1) + "%"; }
  function withUnit(v, chart) { return number.format(v) + (chart.unit ? " " + chart.unit : ""); }

  // Vertical markers between the two points of each change point, as
  // elements over the canvas so that they carry their text.
  function changeMarkers(chart) {
    var markers = [];
    return {hooks: {
      init: [function (u) {
        chart.changes.forEach(function (c) {
          var marker = document.createElement("div");
          marker.className = "trend-change " + (c.regression ? "regression" : "improvement");
          marker.dataset.index = c.index;
          var label = document.createElement("span");
          label.textContent = percent(c.change) + " " + short(c.from) + ".." + short(c.to);
          marker.appendChild(label);
          u.over.appendChild(marker);
          markers.push(marker);
        });
      }],
      draw: [function (u) {
        markers.forEach(function (marker, i) {
          var x = u.valToPos(chart.changes[i].index - 0.5, "x");
          marker.style.left = x + "px";
          marker.style.display = x < 0 || x > u.over.clientWidth ? "none" : "";
        });
      }],
    }};
  }

  // The hovered point's commit, date and figures.
  function tooltip(chart) {
    var tip;
    function line(text, className) {
      var div = document.createElement("div");
      div.textContent = text;
      if (className) div.className = className;
      return div;
    }
    return {hooks: {
      init: [function (u) {
        tip = document.createElement("div");
        tip.className = "trend-tooltip";
        tip.style.display = "none";
        u.over.appendChild(tip);
      }],
      setCursor: [function (u) {
        var i = u.cursor.idx;
        if (i == null || u.cursor.left < 0) {
          tip.style.display = "none";
          return;
        }
        var lines = [
          line(chart.commits[i], "commit"),
          line(when(chart.times[i])),
          line("median " + withUnit(chart.median[i], chart)),
          line("min–max " + number.format(chart.min[i]) + "–" + withUnit(chart.max[i], chart) + " (" + chart.runs[i] + " runs)"),
        ];
        chart.changes.forEach(function (c) {
          if (c.index === i) lines.push(line("change point: " + percent(c.change) + " since " + short(c.from)));
        });
        if (chart.links[i]) lines.push(line("click for its profiles"));
        tip.replaceChildren.apply(tip, lines);
        tip.style.display = "";
        var x = u.valToPos(i, "x"), y = u.valToPos(chart.median[i], "y");
        var width = u.over.clientWidth;
        tip.style.left = (x < width / 2 ? x + 10 : x - 10 - tip.offsetWidth) + "px";
        tip.style.top = Math.max(0, Math.min(y - tip.offsetHeight / 2, u.over.clientHeight - tip.offsetHeight)) + "px";
      }],
    }};
  }

  // A click on a point (not the end of a drag that zooms) opens its profiles.
  function profileLinks(chart) {
    return {hooks: {init: [function (u) {
      var down = null;
      u.over.addEventListener("mousedown", function (e) { down = [e.clientX, e.clientY]; });
      u.over.addEventListener("click", function (e) {
        var moved = down && Math.abs(e.clientX - down[0]) + Math.abs(e.clientY - down[1]) > 4;
        var i = u.cursor.idx;
        if (!moved && i != null && chart.links[i]) window.location.href = chart.links[i];
      });
    }]}};
  }

  charts.forEach(function (chart) {
    var figure = document.getElementById(chart.id);
    var stroke = "#00add8", spread = "rgba(0, 173, 216, 0.35)";
    var opts = {
      title: chart.metric + (chart.unit && chart.unit !== chart.metric ? " (" + chart.unit + ")" : ""),
      width: 560,
      height: 260,
      // Room for the last point's date, which is centred on it.
      padding: [12, 40, 0, 0],
      scales: {x: {time: false}},
      legend: {show: false},
      cursor: {drag: {x: true, y: false}},
      series: [
        {label: "commit"},
        {label: "median", stroke: stroke, width: 2, points: {show: true, size: 6, fill: stroke}},
        {label: "min", stroke: spread, width: 1, points: {show: false}},
        {label: "max", stroke: spread, width: 1, points: {show: false}},
      ],
      bands: [{series: [3, 2], fill: "rgba(0, 173, 216, 0.15)"}],
      axes: [
        {incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], space: 50,
         values: function (u, splits) {
           return splits.map(function (i) { return Number.isInteger(i) && i >= 0 && i < chart.times.length ? dayOrTime(chart.times, i) : ""; });
         }},
        {values: function (u, splits) { return axisLabels(splits); },
         // Wide enough for the longest label, at about 7 pixels a character.
         size: function (u, labels) {
           return labels ? 20 + 7 * Math.max.apply(null, labels.map(function (l) { return String(l).length; })) : 50;
         }},
      ],
      plugins: [changeMarkers(chart), tooltip(chart), profileLinks(chart)],
    };
    var xs = chart.median.map(function (_, i) { return i; });
    drawn[chart.id] = new uPlot(opts, [xs, chart.median, chart.min, chart.max], figure);
    // uPlot appends its chart; the list of change points goes below it.
    var caption = figure.querySelector("figcaption");
    if (caption) figure.appendChild(caption);
  });
})();
