(function () {
  // The growth charts' data, which the page carries as JSON.
  var charts = JSON.parse(document.getElementById("growth-data").textContent);
  // The uPlot instances by figure id, for the browser test.
  var drawn = window.growthCharts = {};
  var compact = new Intl.NumberFormat("en", {notation: "compact", maximumSignificantDigits: 3});
  function labels(u, splits) { return splits.map(function (v) { return compact.format(v); }); }
  charts.forEach(function (chart) {
    var figure = document.getElementById(chart.id);
    var measured = "#00add8", fitted = "#d62728";
    var opts = {
      title: chart.benchmark + ": " + chart.order,
      width: 340,
      height: 200,
      padding: [8, 16, 0, 0],
      scales: {x: {time: false}},
      legend: {show: false},
      series: [
        {label: chart.n},
        // The counts: points only, no line between them.
        {label: chart.figure, stroke: measured, fill: measured, paths: function () { return null; },
         points: {show: true, size: 8, fill: measured}},
        {label: chart.order + " fit", stroke: fitted, width: 1.5, points: {show: false}},
      ],
      axes: [
        {label: "N (" + chart.n + ")", values: labels, space: 60},
        {values: labels, size: 50},
      ],
    };
    drawn[chart.id] = new uPlot(opts, [chart.x, chart.counts, chart.fit], figure);
    // uPlot appends its chart; the fit in words goes below it.
    figure.appendChild(figure.querySelector("figcaption"));
  });
})();
