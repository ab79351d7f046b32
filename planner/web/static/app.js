// The planning app's page script: posts the form on every change, shows the answer, keeps
// the state in the URL (history.replaceState), polls long computations and cancels them.
// Without it the page still works: the form is a GET of the same URL, rendered by the server.
(function () {
  "use strict";
  const form = document.getElementById("inputs");
  if (!form) return;
  const slug = form.dataset.slug;
  const result = document.getElementById("result");
  const progress = document.getElementById("progress");
  const cancelButton = document.getElementById("cancel");
  let generation = 0;
  let currentJob = null;
  let timer = null;

  function formData() {
    const data = new FormData();
    for (const el of form.elements) {
      if (!el.name) continue;
      if (el.type === "file") {
        if (el.files.length) data.append(el.name, el.files[0], el.files[0].name);
      } else if (el.type === "checkbox") {
        data.append(el.name, el.checked ? "1" : "0");
      } else {
        data.append(el.name, el.value);
      }
    }
    return data;
  }

  function showErrors(errors) {
    for (const span of form.querySelectorAll(".error")) {
      const name = span.id.slice("error-".length);
      span.textContent = errors[name] || "";
      const input = document.getElementById("input-" + name);
      if (input) input.setAttribute("aria-invalid", errors[name] ? "true" : "false");
    }
  }

  function message(text, testid) {
    const line = document.createElement("p");
    line.className = "message";
    line.dataset.testid = testid;
    line.setAttribute("role", "alert");
    line.textContent = text;
    result.replaceChildren(line);
  }

  function busy(on, answer) {
    progress.hidden = !on;
    cancelButton.hidden = !on;
    result.setAttribute("aria-busy", on ? "true" : "false");
    if (on && answer && answer.total) {
      progress.max = answer.total;
      progress.value = answer.done;
    } else if (on) {
      progress.removeAttribute("value");
    }
  }

  function show(answer, mine) {
    if (mine !== generation) return; // an older request's answer
    if (answer.query !== undefined) {
      const search = answer.query ? "?" + answer.query : "";
      history.replaceState(null, "", location.pathname + search);
    }
    if (answer.status === "running") {
      if (answer.html) { // the quick part: the headline while the figures are drawn
        showErrors({});
        result.innerHTML = answer.html;
        result.dataset.state = "preview";
      }
      currentJob = answer.job || currentJob;
      busy(true, answer);
      setTimeout(function () { poll(currentJob, mine); }, 200);
      return;
    }
    busy(false);
    currentJob = null;
    showErrors(answer.errors || {});
    result.dataset.state = answer.status;
    if (answer.status === "done") result.innerHTML = answer.html;
    else if (answer.status === "cancelled") message("Cancelled.", "cancelled");
    else if (answer.error) message(answer.error, "error");
    else message("Correct the value marked beside its field.", "hint");
  }

  function failed(mine) {
    if (mine !== generation) return;
    busy(false);
    message("The server did not answer; is planner app still running?", "error");
  }

  function poll(job, mine) {
    if (mine !== generation || job === null) return;
    fetch("/api/jobs/" + encodeURIComponent(job))
      .then(function (r) { return r.json(); })
      .then(function (answer) { show(answer, mine); })
      .catch(function () { failed(mine); });
  }

  function compute() {
    clearTimeout(timer);
    generation += 1;
    const mine = generation;
    result.dataset.state = "busy";
    fetch("/api/" + encodeURIComponent(slug), { method: "POST", body: formData() })
      .then(function (r) { return r.json(); })
      .then(function (answer) { show(answer, mine); })
      .catch(function () { failed(mine); });
  }

  form.addEventListener("input", function (event) {
    if (event.target.type === "file") return; // "change" follows
    clearTimeout(timer);
    timer = setTimeout(compute, 300);
  });
  form.addEventListener("change", compute);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    compute();
  });
  if (result.dataset.state === "preview") compute(); // the server sent the quick part
  cancelButton.addEventListener("click", function () {
    const job = currentJob;
    generation += 1;
    busy(false);
    const line = document.createElement("p");
    line.className = "message";
    line.dataset.testid = "cancelled";
    line.textContent = "Cancelled: the figures and tables below may be missing or older.";
    result.prepend(line);
    if (job) fetch("/api/jobs/" + encodeURIComponent(job) + "/cancel", { method: "POST" });
  });
})();
