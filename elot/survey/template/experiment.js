/*
 * The experiment of a survey built by `elot survey build` (jsPsych 8).
 *
 * SURVEY, just below, describes this survey: its scenarios (each with its segments, the
 * judgment point t each ends at, and its statements), the counterbalanced orders and the
 * settings. The rest is plain code meant to be read and adapted: the words participants
 * read are in TEXT, each kind of screen is one function (consentScreen, tutorialScreens,
 * segmentScreen, ...), and main() puts them in order.
 *
 * Answers: when `elot survey serve` served this page, every trial is sent to it as it
 * ends (kept in the browser until the server has it, so a lost connection or a restarted
 * server loses nothing), and a returning participant continues where they were. On any
 * other host (JATOS, Pavlovia, a static web server) jsPsych keeps the data: JATOS
 * receives them at the end; elsewhere the last screen offers them as a download.
 */
"use strict";

const SURVEY = /*SURVEY*/null;

const TEXT = {
  // the duration is estimated at build time from what the study holds (elot.survey.design)
  consent: (minutes) => "<p>In this study you will watch short animations of a player moving through a maze, " +
    "and answer questions about what the player wants and believes. It takes about " + minutes +
    (minutes === 1 ? " minute" : " minutes") + ". Your answers " +
    "are stored without your name and used for research only. You may stop at any time.</p>" +
    "<p>Do you agree to take part?</p>",
  agree: "I agree", decline: "I do not agree",
  declined: "<p>You did not agree to take part. You can close this page.</p>",
  next: "Continue", replay: "Replay", finish: "Finish",
  world: (icons) => "<p>You will watch a <b>player</b> (the black figure) in a maze. The player wants one " +
    "of the <b>gems</b> " + icons + ": it is trying to reach it. Black squares are walls.</p>" +
    "<p><b>Doors</b> are locked. A door opens with a <b>key</b> of its colour (the letter on a door or a " +
    "key names its colour), and each key opens one door. Keys lie on the floor or are hidden in " +
    "numbered <b>boxes</b>. The player <b>cannot see inside a closed box</b>: it may not know where the keys " +
    "are, and it may think a key is where it is not. What the player holds is shown below the maze.</p>",
  task: (condition) => "<p>Each scenario is shown in a few parts. After each part you answer two kinds of " +
    "question:</p><ol><li><b>Goal:</b> tick <b>every</b> gem that is likely to be the player's goal.</li>" +
    "<li><b>Statements</b> about what the player " + (condition === "initial" ?
      "believed <b>at the start</b>, before it moved" : "believes <b>now</b>, at that point") +
    ": set each slider to say how true you think the statement is, from 1 (definitely false) to 7 " +
    "(definitely true). Drag it, or click (tap) a point on it; to answer 4, where each slider starts, " +
    "click (tap) its handle.</li></ol><p>You can replay each part. The answer button works once the " +
    "part has played and every question is answered.</p>",
  example: "Here is a maze as you will see it:",
  checkPreamble: "<p>A few questions to check that the task is clear.</p>",
  checks: [
    {prompt: "Which gems should you tick?", options: ["Every gem that is likely to be the player's goal",
      "Only the gem nearest to the player", "Every gem in the maze"], correct: 0},
    {prompt: "What does 7 on a slider mean?", options: ["The statement is definitely true",
      "The statement is definitely false", "I am unsure"], correct: 0},
    {prompt: "Can the player see what is inside a closed box?", options: [
      "No: it may not know what a box holds until it opens it", "Yes, always"], correct: 0},
  ],
  checkFailed: "<p>Some answers were not right. Please read the instructions again.</p>",
  scenarioStart: (i, n) => "<p><b>Scenario " + i + " of " + n + ".</b> This is where the player starts.</p>",
  part: (i, n, k, m) => "Scenario " + i + " of " + n + " · part " + k + " of " + m,
  goals: "Which gems is the player likely trying to reach? Tick every likely one.",
  gem: (g) => "gem " + g,
  gemNames: "each gem's name is written over it in the maze",
  statements: (condition) => condition === "initial" ?
    "At the start, before it moved, how true was each statement?" : "Right now, how true is each statement?",
  anchors: ["definitely false", "unsure", "definitely true"],
  watchFirst: "Watch the animation to its end.",
  tickGoal: "Tick at least one gem.",
  moveSliders: (n) => "Set " + (n === 1 ? "the slider" : "each slider (" + n + " left)") +
    ": drag it, or click (tap) its handle to answer 4.",
  debrief: "<p>Thank you! The study asked how people judge what others believe from what they do. " +
    "Your answers will be compared with a model of such judgments.</p>",
  saving: "<p>Saving your answers…</p>",
  saved: "<p>Your answers are saved. Thank you!</p>",
  redirect: "<p>Your answers are saved. Taking you back to Prolific…</p>",
  download: "Download your answers",
};

/* -- helpers -------------------------------------------------------------------------- */

function esc(text) {
  return String(text).replace(/[&<>"']/g,
    (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}

const params = new URLSearchParams(window.location.search);
const PROLIFIC = {
  pid: params.get("PROLIFIC_PID") || "",
  study: params.get("STUDY_ID") || "",
  session: params.get("SESSION_ID") || "",
};
const STORE = "elot-survey-" + SURVEY.id;

function remember(key, value) {
  try { localStorage.setItem(STORE + "-" + key, JSON.stringify(value)); } catch (e) { /* private mode */ }
}
function recall(key, fallback) {
  try { const v = localStorage.getItem(STORE + "-" + key); return v === null ? fallback : JSON.parse(v); }
  catch (e) { return fallback; }
}

function gemIcon(g) {
  return '<img src="' + esc(SURVEY.gem_icons[g - 1]) + '" alt="' + esc(TEXT.gem(g)) + '" class="elot-inline">';
}

/* -- the session: which order, what is already done ------------------------------------ */

async function startSession() {
  const token = recall("token", null);
  try {
    const reply = await fetch("api/start", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({survey: SURVEY.id, token: token, prolific_pid: PROLIFIC.pid,
                            study_id: PROLIFIC.study, session_id: PROLIFIC.session}),
    });
    if (reply.ok) {
      const s = await reply.json();
      remember("token", s.token);
      return {online: true, token: s.token, participant: s.participant, order: s.order, done: s.done};
    }
  } catch (e) { /* no server: a static host */ }
  let participant = PROLIFIC.pid || recall("participant", null);
  if (!participant) participant = "p-" + Math.random().toString(36).slice(2, 12);
  remember("participant", participant);
  let hash = 0;
  for (const c of participant) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return {online: false, token: null, participant: participant, order: hash % SURVEY.orders.length, done: {}};
}

/* Trials on their way to the server, kept in the browser until it has them. */
const outbox = {
  items: recall("outbox", []),
  sending: false,
  session: null,
  add(data) {
    if (!this.session.online || !data.elot_step) return;
    this.items.push({step: data.elot_step, data: data});
    remember("outbox", this.items);
    this.flush();
  },
  async flush() {
    if (this.sending) return;
    this.sending = true;
    while (this.items.length) {
      const item = this.items[0];
      let sent = false;
      try {
        const reply = await fetch("api/trial", {
          method: "POST", headers: {"Content-Type": "application/json"},
          body: JSON.stringify({survey: SURVEY.id, token: this.session.token, step: item.step, data: item.data}),
        });
        if (reply.ok) sent = true;
        else if (reply.status >= 400 && reply.status < 500) {
          console.error("the server refused step " + item.step + ": " + await reply.text());
          sent = true;  // it never will take it: keep going with the others
        }
      } catch (e) { /* the server is away: try again shortly */ }
      if (!sent) {
        this.sending = false;
        setTimeout(() => this.flush(), 1000);
        return;
      }
      this.items.shift();
      remember("outbox", this.items);
    }
    this.sending = false;
  },
  async drained() {
    while (this.items.length) { this.flush(); await new Promise((r) => setTimeout(r, 300)); }
  },
};

/* -- screens ---------------------------------------------------------------------------- */

function consentScreen() {
  return {
    type: jsPsychHtmlButtonResponse,
    // a researcher's own consent may say {minutes}: the estimate made at build time
    stimulus: '<div class="elot-text">' + (SURVEY.settings.consent_html ?
      SURVEY.settings.consent_html.replace(/\{minutes\}/g, String(SURVEY.duration_minutes || "")) :
      TEXT.consent(SURVEY.duration_minutes || 20)) + "</div>",
    choices: [TEXT.agree, TEXT.decline],
    data: {elot_step: "consent", elot_kind: "consent"},
    on_finish: (data) => { data.elot_agreed = data.response === 0; },
  };
}

function tutorialScreens(jsPsych, session, order, attempt) {
  const first = SURVEY.scenarios.find((s) => s.name === order.trials[0].scenario);
  // each gem's icon (painted as the animations paint it) with the name written over it in the maze
  // (the opening bracket kept with the first icon, so that a line never breaks after it)
  const icons = SURVEY.gem_icons.slice(0, first.gems)
    .map((_, g) => '<span class="elot-gem">' + (g === 0 ? "(" : "") + gemIcon(g + 1) + "&nbsp;" +
      esc(TEXT.gem(g + 1)) + "</span>").join(", ") + "; " + TEXT.gemNames + ")";
  const screens = [];
  if (attempt > 1) {
    screens.push({type: jsPsychHtmlButtonResponse, stimulus: '<div class="elot-text">' + TEXT.checkFailed + "</div>",
                  choices: [TEXT.next], data: {elot_step: "retry", elot_kind: "instructions"}});
  }
  screens.push({
    type: jsPsychHtmlButtonResponse,
    stimulus: '<div class="elot-text">' + TEXT.world(icons) + "<p>" + TEXT.example + '</p><img class="elot-example" src="' +
      esc(first.segments[0].image) + '" alt="a maze"></div>',
    choices: [TEXT.next], data: {elot_step: "tutorial-" + attempt + "-world", elot_kind: "instructions"},
  });
  screens.push({
    type: jsPsychHtmlButtonResponse, stimulus: '<div class="elot-text">' + TEXT.task(order.condition) + "</div>",
    choices: [TEXT.next], data: {elot_step: "tutorial-" + attempt + "-task", elot_kind: "instructions"},
  });
  screens.push({
    type: jsPsychSurveyMultiChoice,
    preamble: '<div class="elot-text">' + TEXT.checkPreamble + "</div>",
    questions: TEXT.checks.map((q, n) => ({prompt: q.prompt, options: q.options, name: "check_" + n, required: true})),
    button_label: TEXT.next,
    data: {elot_step: "check-" + attempt, elot_kind: "comprehension", elot_attempt: attempt},
    on_finish: (data) => {
      data.elot_passed = TEXT.checks.every((q, n) => data.response["check_" + n] === q.options[q.correct]);
    },
  });
  return screens;
}

function passedCheck(jsPsych, session, attempt) {
  const step = "check-" + attempt;
  if (session.done[step]) return session.done[step].passed === true;
  const rows = jsPsych.data.get().filter({elot_step: step}).values();
  return rows.length > 0 && rows[rows.length - 1].elot_passed === true;
}

/* One segment of one scenario: the animation, and at a judgment point the questions. */
function segmentScreen(order, position, k) {
  const trial = order.trials[position];
  const scenario = SURVEY.scenarios.find((s) => s.name === trial.scenario);
  const segment = scenario.segments[k];
  const step = "s" + (position + 1) + "-" + k;
  const caption = TEXT.part(position + 1, order.trials.length, k + 1, scenario.segments.length);
  const stimulus = '<div class="elot-stimulus"><div class="elot-caption">' + esc(caption) + "</div>" +
    (k === 0 && !segment.judged ? TEXT.scenarioStart(position + 1, order.trials.length) : "") +
    '<img id="elot-stimulus" src="' + esc(segment.image) + '" alt="the maze, part ' + (k + 1) + '">' +
    '<div' + (segment.frames > 1 ? "" : " hidden") + '><button type="button" class="elot-replay" id="elot-replay">' +
    esc(TEXT.replay) + "</button></div></div>";
  const data = {elot_step: step, elot_kind: segment.judged ? "judgment" : "watch", elot_scenario: scenario.name,
                elot_segment: k, elot_t: segment.t, elot_control: trial.control};
  if (!segment.judged) {
    return {
      type: jsPsychHtmlButtonResponse,
      stimulus: '<div class="elot-page elot-watch-only" data-scenario="' + esc(scenario.name) + '" data-t="' +
        segment.t + '">' + stimulus + "</div>",
      choices: [TEXT.next], data: data,
      on_load: () => wire(segment, document.querySelector(".jspsych-html-button-response-button button") ||
                                    document.querySelector(".jspsych-btn"), false),
    };
  }
  let html = '<div class="elot-page" data-scenario="' + esc(scenario.name) + '" data-t="' + segment.t + '">' + stimulus + '<div class="elot-questions">';
  html += '<fieldset class="elot-goals"><legend>' + esc(TEXT.goals) + "</legend>";
  for (let g = 1; g <= scenario.gems; g++) {
    html += '<label><input type="checkbox" name="goal_' + g + '" value="1">' + gemIcon(g).replace("elot-inline", "") +
      " " + esc(TEXT.gem(g)) + "</label>";
  }
  html += "</fieldset><fieldset><legend>" + esc(TEXT.statements(order.condition)) + "</legend>";
  for (const n of trial.statements) {
    // a statement written in ELoT is shown in English ("shown"); "text" is what import reads
    const words = scenario.statements[n].shown || scenario.statements[n].text;
    html += '<div class="elot-statement"><p>' + esc(words) + "</p>" +
      '<input type="range" min="1" max="7" step="1" value="4" name="rating_' + n + '" class="elot-unmoved" ' +
      'aria-label="' + esc(words) + '">' +
      '<div class="elot-ticks">' + [1, 2, 3, 4, 5, 6, 7].map((v) => "<span>" + v + "</span>").join("") + "</div>" +
      '<div class="elot-anchors"><span>' + TEXT.anchors.map(esc).join("</span><span>") + "</span></div></div>";
  }
  html += '</fieldset><div class="elot-todo" id="elot-todo"></div></div></div>';
  data.elot_statements = trial.statements.slice();
  return {
    type: jsPsychSurveyHtmlForm,
    html: html, button_label: TEXT.next, data: data,
    on_load: () => wire(segment, document.getElementById("jspsych-survey-html-form-next"), true),
    on_finish: (d) => {
      d.elot_goals = Object.keys(d.response).filter((key) => key.startsWith("goal_")).map((key) => +key.slice(5))
        .sort((a, b) => a - b);
      d.elot_ratings = trial.statements.map((n) => +d.response["rating_" + n]);
    },
  };
}

/* The answer button waits for the animation to play once and for every answer. */
function wire(segment, button, questions) {
  const img = document.getElementById("elot-stimulus");
  const todo = document.getElementById("elot-todo");
  const form = document.querySelector(".elot-questions");
  if (questions && form) form.appendChild(button);  // beside the stimulus, not under it
  let watched = !SURVEY.settings.require_watch;
  let plays = 0, timer = null;
  const play = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { watched = true; update(); }, segment.duration_ms + 100);
  };
  if (img.complete) play(); else img.addEventListener("load", play, {once: true});
  document.getElementById("elot-replay").addEventListener("click", () => {
    img.src = segment.image + "?play=" + (++plays);  // a new URL restarts the animation
  });
  const sliders = Array.from(document.querySelectorAll('.elot-questions input[type="range"]'));
  const boxes = Array.from(document.querySelectorAll('.elot-goals input[type="checkbox"]'));
  for (const slider of sliders) {
    const moved = () => { slider.classList.remove("elot-unmoved"); slider.dataset.moved = "1"; update(); };
    slider.addEventListener("input", moved);
    slider.addEventListener("change", moved);
    // a click or tap on the handle where it starts (4) answers 4: the value does not
    // change, so neither input nor change fires; so do the keys that set a slider
    slider.addEventListener("pointerup", moved);
    slider.addEventListener("click", moved);
    slider.addEventListener("keydown", (e) => {
      if (["Enter", " ", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(e.key)) moved();
    });
  }
  for (const box of boxes) box.addEventListener("change", update);
  function update() {
    const missing = [];
    if (!watched) missing.push(TEXT.watchFirst);
    if (boxes.length && !boxes.some((b) => b.checked)) missing.push(TEXT.tickGoal);
    const left = sliders.filter((s) => !s.dataset.moved).length;
    if (left) missing.push(TEXT.moveSliders(left));
    button.disabled = missing.length > 0;
    if (todo) todo.textContent = missing.join(" ");
  }
  update();
}

function debriefScreen() {
  return {
    type: jsPsychHtmlButtonResponse,
    stimulus: '<div class="elot-text">' + (SURVEY.settings.debrief_html || TEXT.debrief) + "</div>",
    choices: [TEXT.finish], data: {elot_step: "debrief", elot_kind: "debrief"},
  };
}

/* -- the experiment --------------------------------------------------------------------- */

async function main() {
  const session = await startSession();
  outbox.session = session;
  outbox.flush();
  const order = SURVEY.orders[session.order];
  const jsPsych = initJsPsych({
    on_trial_finish: (data) => outbox.add(data),
    on_finish: () => finish(jsPsych, session),
  });
  jsPsych.data.addProperties({participant: session.participant, prolific_pid: PROLIFIC.pid,
                              study_id: PROLIFIC.study, session_id: PROLIFIC.session, survey_id: SURVEY.id,
                              order: session.order, condition: order.condition});
  const pending = new Set(outbox.items.map((item) => item.step));
  const todo = (screen) => !(screen.data.elot_step in session.done) && !pending.has(screen.data.elot_step);
  const images = new Set(SURVEY.gem_icons);
  for (const trial of order.trials) {
    for (const segment of SURVEY.scenarios.find((s) => s.name === trial.scenario).segments) images.add(segment.image);
  }
  const timeline = [{type: jsPsychPreload, images: Array.from(images)}];
  timeline.push(...[consentScreen()].filter(todo));
  timeline.push({
    timeline: [{type: jsPsychHtmlButtonResponse, stimulus: TEXT.declined, choices: [],
                on_load: () => jsPsych.abortExperiment(TEXT.declined)}],
    conditional_function: () => {
      const rows = jsPsych.data.get().filter({elot_step: "consent"}).values();
      return rows.length > 0 && rows[0].elot_agreed === false;
    },
  });
  timeline.push(...tutorialScreens(jsPsych, session, order, 1).filter(todo));
  timeline.push({timeline: tutorialScreens(jsPsych, session, order, 2).filter(todo),
                 conditional_function: () => !passedCheck(jsPsych, session, 1)});
  order.trials.forEach((trial, position) => {
    const scenario = SURVEY.scenarios.find((s) => s.name === trial.scenario);
    scenario.segments.forEach((_, k) => {
      const screen = segmentScreen(order, position, k);
      if (todo(screen)) timeline.push(screen);
    });
  });
  timeline.push(debriefScreen());
  jsPsych.run(timeline);
}

async function finish(jsPsych, session) {
  const display = jsPsych.getDisplayElement();
  if (jsPsych.data.get().filter({elot_step: "consent", elot_agreed: false}).count() > 0) return;
  display.innerHTML = '<div class="elot-text">' + TEXT.saving + "</div>";
  if (session.online) {
    await outbox.drained();
  } else if (typeof jatos !== "undefined") {
    await jatos.submitResultData(jsPsych.data.get().json());
  }
  const url = SURVEY.settings.completion_url;
  if (url) {
    display.innerHTML = '<div class="elot-text">' + TEXT.redirect + "</div>";
    if (typeof jatos !== "undefined") jatos.endStudyAndRedirect(url);
    else window.location.assign(url);
    return;
  }
  if (typeof jatos !== "undefined") { jatos.endStudy(); return; }
  display.innerHTML = '<div class="elot-text">' + TEXT.saved + "</div>";
  if (!session.online) {     // no server, no JATOS: the participant can keep the data (jsPsych's JSON or CSV)
    for (const format of ["json", "csv"]) {
      const button = document.createElement("button");
      button.className = "jspsych-btn";
      button.textContent = TEXT.download + " (" + format.toUpperCase() + ")";
      button.addEventListener("click",
        () => jsPsych.data.get().localSave(format, "answers-" + session.participant + "." + format));
      display.querySelector(".elot-text").appendChild(button);
    }
  }
}

window.addEventListener("DOMContentLoaded", main);
