// The alerts page: the state filter reloads the page with it, so that the
// address names what is shown.
(function () {
  "use strict";
  var state = document.getElementById("state");
  if (state) state.addEventListener("change", function () { state.form.submit(); });
})();
