// The compare page: "only changed" reloads the page with its filter, so
// that the address names what is shown.
(function () {
  "use strict";
  var box = document.getElementById("only-changed");
  if (box) box.addEventListener("change", function () { box.form.submit(); });
})();
