// Switches the charts between their linear and log scales.
document.getElementById("log-scale").addEventListener("change", function (event) {
  var scale = event.target.checked ? "log" : "linear";
  document.querySelectorAll(".chart .bar").forEach(function (bar) {
    bar.setAttribute("width", bar.dataset[scale]);
  });
  document.querySelectorAll(".chart .value").forEach(function (value) {
    value.setAttribute("x", value.dataset[scale]);
  });
});
