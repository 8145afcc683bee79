/*
 * The experiment of a survey built by `elot survey build` (jsPsych 8).
 *
 * SURVEY, just below, describes this survey: its scenarios (each with its segments, the
 * judgment point t each ends at, and its statements), the counterbalanced orders and the
 * settings. The rest is plain code meant to be read and adapted: the words participants
 * read are in TEXT, each kind of screen is one function (consentScreen, tutorialScreens,
 * segmentScreen, ...), and main() puts them in order.
 *
 * Answers: when `elot survey serve` served this page (it marks the page), every trial is
 * sent to it as it ends (kept in the browser until the server says it stored it, so a lost
 * connection or a restarted server loses nothing); while the server cannot be reached the
 * page retries and tells the participant, and a returning participant (the session token
 * this browser kept) continues where they were. Inside JATOS (`elot survey export
 * --jatos`: the page loads jatos.js) each trial is appended to the result data as it ends,
 * one JSON object per line, and the order comes from JATOS's batch session, balanced by
 * arrival. On any other host (Pavlovia, a static web server) jsPsych keeps the data and
 * the last screen offers them as a download.
 *
 * Prolific: a survey built with --prolific-completion sends participants back to Prolific
 * with that code at the end; with --prolific-screenout, one who failed both comprehension
 * checks is sent back at once with the screen-out code instead.
 */
"use strict";

const SURVEY = /*SURVEY*/null;

const TEXT = {
  // the duration is estimated at build time from what the study holds (elot.survey.design)
  consent: (minutes) => "<p>In this study you will watch short animations of a player moving through a maze, " +
    "and answer questions about what the player wants and believes. It takes about " + minutes +
    (minutes === 1 ? " minute" : " minutes") + ". Your answers " +
    "are stored without your name and used for research only. You may stop at any time.</p>" +
    (contactLink() ? "<p>Questions about the study: " + contactLink() + ".</p>" : "") +
    "<p>Do you agree to take part?</p>",
  agree: "I agree", decline: "I do not agree",
  declined: "<p>You did not agree to take part. You can close this page.</p>",
  // a Prolific participant who declines returns the submission (no completion code: they did not take part)
  declinedProlific: "<p>You did not agree to take part. Please <b>return your submission</b> on Prolific (the " +
    "study's \u201cReturn\u201d button there), so that your place goes to someone else. You can then close this " +
    "page.</p>",
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
  screenedOut: "<p>Thank you. The answers to the questions about the task were not right twice, so this " +
    "study ends here. Taking you back to Prolific…</p>",
  download: "Download your answers",
  picture: "maze",
};

/* The texts of a campus of food trucks (SURVEY.texts "campus"): a student, trucks and a
   building; the participants rate the statements only (no goal question). */
const CAMPUS_TEXT = {
  consent: (minutes) => "<p>In this study you will watch short animations of a student looking for lunch " +
    "among food trucks, and answer questions about what the student believed. It takes about " + minutes +
    (minutes === 1 ? " minute" : " minutes") + ". Your answers " +
    "are stored without your name and used for research only. You may stop at any time.</p>" +
    (contactLink() ? "<p>Questions about the study: " + contactLink() + ".</p>" : "") +
    "<p>Do you agree to take part?</p>",
  world: () => "<p>You will watch a hungry <b>student</b> (the black figure) on a campus. There are two " +
    "<b>parking spots</b> for food trucks, drawn with dashed lines: one in the bottom left corner, which always " +
    "holds the <b>Korean</b> truck (K), and one in the top right corner, <b>behind a building</b> (black). " +
    "The second spot may hold the <b>Lebanese</b> truck (L), the <b>Mexican</b> truck (M), or nothing.</p>" +
    "<p>The student <b>cannot see through the building</b>: the part of the campus it cannot see from where it " +
    "stands is shaded, and the second spot shows a <b>?</b> until the student has seen it. The student may go " +
    "and look before choosing where to eat; eating at a truck ends the walk.</p>",
  task: (condition) => "<p>Each scenario shows where the student starts, then its walk. After the walk you " +
    "rate <b>statements</b> about what the student " + (condition === "current" ?
      "believes <b>now</b>" : "believed <b>at the start</b>, before it moved") +
    ": move each slider to say how true you think the statement is, from 1 (definitely false) to 7 " +
    "(definitely true).</p><p>You can replay the walk. The answer button works once it has played and every " +
    "slider has been moved.</p>",
  example: "Here is the campus as you will see it:",
  picture: "campus",
  checks: [
    {prompt: "What does 7 on a slider mean?", options: ["The statement is definitely true",
      "The statement is definitely false", "I am unsure"], correct: 0},
    {prompt: "Can the student see through the building?", options: [
      "No: it may not know what is behind the building until it goes to look", "Yes, always"], correct: 0},
  ],
  scenarioStart: (i, n) => "<p><b>Scenario " + i + " of " + n + ".</b> This is where the student starts.</p>",
  debrief: "<p>Thank you! The study asked how people judge what others believe from what they do. " +
    "Your answers will be compared with a model of such judgments.</p>",
};
/* The texts of any other scene (SURVEY.texts "scene"): the agent and the scene in the
   domain's own words (SURVEY.words: "agent", the one watched; "scene", a paragraph saying
   what the animations show); the participants rate the statements only. */
const WORDS = (SURVEY && SURVEY.words) || {};
const AGENT = esc(WORDS.agent || "the agent");
const SCENE_TEXT = {
  consent: (minutes) => "<p>In this study you will watch short animations of " + AGENT + " acting, and answer " +
    "questions about what " + AGENT + " wants and believes. It takes about " + minutes +
    (minutes === 1 ? " minute" : " minutes") + ". Your answers " +
    "are stored without your name and used for research only. You may stop at any time.</p>" +
    (contactLink() ? "<p>Questions about the study: " + contactLink() + ".</p>" : "") +
    "<p>Do you agree to take part?</p>",
  world: () => "<p>You will watch " + AGENT + ".</p>" + (WORDS.scene ? "<p>" + esc(WORDS.scene) + "</p>" : ""),
  task: (condition) => "<p>Each scenario shows where " + AGENT + " starts, then what it does. After each part you " +
    "rate <b>statements</b> about what " + AGENT + " " + (condition === "current" ?
      "believes <b>now</b>" : "believed <b>at the start</b>, before it moved") +
    ": move each slider to say how true you think the statement is, from 1 (definitely false) to 7 " +
    "(definitely true).</p><p>You can replay each part. The answer button works once it has played and every " +
    "slider has been moved.</p>",
  example: "Here is the scene as you will see it:",
  picture: "scene",
  checks: [
    {prompt: "What does 7 on a slider mean?", options: ["The statement is definitely true",
      "The statement is definitely false", "I am unsure"], correct: 0},
  ],
  scenarioStart: (i, n) => "<p><b>Scenario " + i + " of " + n + ".</b> This is where " + AGENT + " starts.</p>",
};
if (SURVEY && SURVEY.texts === "campus") Object.assign(TEXT, CAMPUS_TEXT);
if (SURVEY && SURVEY.texts === "scene") Object.assign(TEXT, SCENE_TEXT);

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

/* The researcher's contact (survey build --contact), escaped, as a link: an e-mail address
 * as mailto:, a web address as itself ("" when the survey has none). Build accepts only
 * these two kinds; anything else (an edited survey.json) is shown as plain text. */
function contactLink() {
  const contact = String(SURVEY.settings.contact || "");
  if (!contact) return "";
  const href = /^https?:\/\/[^\s<>"'`\\]+$/.test(contact) ? contact :
    /^[^\s@<>()\[\],;:"']+@[A-Za-z0-9.-]+$/.test(contact) ? "mailto:" + contact : null;
  return href === null ? esc(contact) :
    '<a href="' + esc(href) + '" target="_blank" rel="noopener">' + esc(contact) + "</a>";
}

function gemIcon(g) {
  return '<img src="' + esc(SURVEY.gem_icons[g - 1]) + '" alt="' + esc(TEXT.gem(g)) + '" class="elot-inline">';
}

/* -- the session: which order, what is already done ------------------------------------ */

/* The words of the connection to `elot survey serve` (what a participant reads while the
 * server cannot be reached, and when answers could not be saved). */
Object.assign(TEXT, {
  contact: () => contactLink() ? " (" + contactLink() + ")" : "",
  connecting: (attempt) => "<b>Connecting to the study server…</b> (attempt " + attempt + "). Please keep this " +
    "page open.",
  unreachable: () => "<b>We could not reach the study server.</b> Please keep this page open: we keep trying, and " +
    "the study goes on as soon as the server answers. If this lasts more than a few minutes, please contact the " +
    "researcher who invited you" + TEXT.contact() + ".",
  refusedStart: (why) => "<b>The study server could not start your session</b> (" + esc(why) + "). Please contact " +
    "the researcher who invited you" + TEXT.contact() + ".",
  unsaved: () => "<b>Your last answers are not saved yet:</b> we cannot reach the study server and keep trying. " +
    "Please keep this page open. If this lasts more than a few minutes, please contact the researcher who invited " +
    "you" + TEXT.contact() + ".",
  notSaved: () => "<p><b>Some of your answers could not be saved</b> by the study server. Please contact the " +
    "researcher who invited you" + TEXT.contact() + ", and send them your answers with the buttons below.</p>",
});

/* Served by `elot survey serve` (it marks the page): every answer must reach the server,
 * so the page never falls back to keeping them in the browser alone. */
const SERVED = document.querySelector('meta[name="elot-server"]') !== null;
/* Waits between tries of a call the server did not answer (about 30 s in all), then
 * every 15 s for as long as the page is open. */
const RETRY_MS = [1000, 2000, 4000, 8000, 15000];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/* A plain message at the top of the page about the connection (none: hide it). */
function notice(html) {
  let box = document.getElementById("elot-network");
  if (!html) { if (box) box.remove(); return; }
  if (!box) {
    box = document.createElement("div");
    box.id = "elot-network";
    box.setAttribute("role", "alert");
    box.style.cssText = "position:fixed;left:0;right:0;top:0;z-index:1000;padding:10px 16px;background:#fff3cd;" +
      "color:#222;border-bottom:2px solid #c9a400;font-size:16px;line-height:1.4;text-align:center";
    document.body.appendChild(box);
  }
  box.innerHTML = html;
}

/* Whether a failed reply may succeed when sent again (the server is away, busy, restarting
 * or out of disk) rather than refused for good. A 500 is the server failing on this very
 * request: sent again for as long as the first waits last (about 30 s), then refused for
 * good, so that no request is sent for ever. */
function transient(status, tries) {
  if (status === 500) return tries < RETRY_MS.length;
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/* One call of api/start: {session} when the server answered 2xx, else {status, why}
 * (status 0: no answer). */
async function askStart() {
  try {
    const reply = await fetch("api/start", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({survey: SURVEY.id, token: recall("token", null), prolific_pid: PROLIFIC.pid,
                            study_id: PROLIFIC.study, session_id: PROLIFIC.session}),
    });
    if (reply.ok) {
      const s = await reply.json();
      remember("token", s.token);
      return {session: {online: true, token: s.token, participant: s.participant, order: s.order, done: s.done}};
    }
    let why = "HTTP " + reply.status;
    try { why = (await reply.json()).error || why; } catch (e) { /* not JSON */ }
    return {status: reply.status, why: why};
  } catch (e) {
    return {status: 0, why: ""};    // no answer: the server is not reachable now
  }
}

async function startSession() {
  if (!SERVED) {     // a page elot did not serve: a server behind the same address (a proxy) is used if it answers
    const reply = await askStart();
    return reply.session || offlineSession();
  }
  for (let attempt = 1; ; attempt++) {
    const reply = await askStart();
    if (reply.session) { notice(null); return reply.session; }
    if (!transient(reply.status, attempt)) {   // refused for good: say so, never go on silently offline
      notice(TEXT.refusedStart(reply.why));
      return new Promise(() => {});
    }
    notice(attempt <= RETRY_MS.length ? TEXT.connecting(attempt + 1) : TEXT.unreachable());
    await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length) - 1]);
  }
}

/* Not served by elot (JATOS, Pavlovia, a static web server): jsPsych keeps the data. */
function offlineSession() {
  let participant = PROLIFIC.pid || recall("participant", null);
  if (!participant) participant = "p-" + Math.random().toString(36).slice(2, 12);
  remember("participant", participant);
  let hash = 0;
  for (const c of participant) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return {online: false, token: null, participant: participant, order: hash % SURVEY.orders.length, done: {}};
}

/* Trials on their way to the server, kept in the browser (with the session token they
 * belong to) until the server has them. A trial is sent until a 2xx says it is stored;
 * one the server refuses for good (a 4xx: an unknown session, a malformed trial) is kept
 * in the browser as not saved, and the last screen says so. */
const outbox = {
  items: recall("outbox", []),
  refused: recall("refused", []),
  sending: false,
  failures: 0,
  timer: null,
  session: null,
  add(data) {
    if (!this.session.online || !data.elot_step) return;
    this.items.push({step: data.elot_step, data: data, token: this.session.token});
    remember("outbox", this.items);
    this.flush();
  },
  async flush() {
    if (this.sending || !this.session || !this.session.online) return;
    this.sending = true;
    clearTimeout(this.timer);
    this.timer = null;
    while (this.items.length) {
      const item = this.items[0];
      let status = 0, why = "";
      try {
        const reply = await fetch("api/trial", {
          method: "POST", headers: {"Content-Type": "application/json"},
          body: JSON.stringify({survey: SURVEY.id, token: item.token || this.session.token, step: item.step,
                                data: item.data}),
        });
        status = reply.status;
        if (!reply.ok) why = await reply.text();
      } catch (e) { status = 0; }   // the server is away: try again shortly
      if (status < 200 || status >= 300) {
        if (transient(status, this.failures + 1)) {
          this.failures++;
          if (this.failures >= 2) notice(TEXT.unsaved());
          this.sending = false;
          this.timer = setTimeout(() => this.flush(), RETRY_MS[Math.min(this.failures, RETRY_MS.length) - 1]);
          return;
        }
        console.error("the server refused step " + item.step + ": " + why);
        this.refused.push({...item, status: status, error: why});
        remember("refused", this.refused);
      }
      this.failures = 0;
      this.items.shift();
      remember("outbox", this.items);
    }
    notice(null);
    this.sending = false;
  },
  async drained() {
    if (!this.timer) this.flush();
    while (this.items.length) await sleep(300);   // flush retries with its own waits
  },
};

/* -- JATOS: the order from the batch session, each trial appended as it ends ------------ */

const IN_JATOS = typeof jatos !== "undefined";

/* The order fewest participants have started, counted in JATOS's batch session (one
   count per order under this survey's key). The new counts are written with the batch
   session's versioning on: JATOS applies a change only to the version it was read from,
   so of two participants arriving together one write wins and the other is refused; the
   refused one reads the counts again (jatos.js has the winner's by then) and retries. */
async function jatosOrder() {
  const key = "elot-orders-" + SURVEY.id;
  jatos.batchSessionVersioning = true;
  for (let attempt = 0; attempt < 40; attempt++) {
    const stored = jatos.batchSession.get(key);
    const counts = SURVEY.orders.map((_, i) =>
      Array.isArray(stored) && Number.isInteger(stored[i]) && stored[i] >= 0 ? stored[i] : 0);
    let order = 0;
    counts.forEach((c, i) => { if (c < counts[order]) order = i; });
    counts[order] += 1;
    try {
      await jatos.batchSession.set(key, counts);
      return order;
    } catch (e) {      // another participant's write came first: read again, after a short random wait
      await new Promise((r) => setTimeout(r, 30 + Math.random() * 40 * Math.min(attempt + 1, 10)));
    }
  }
  return null;
}

/* The JATOS session: the participant (Prolific's PROLIFIC_PID from the study link, else
   JATOS's study result), the order (kept in the study session, so a reload keeps it). */
async function jatosSession() {
  const query = jatos.urlQueryParameters || {};
  PROLIFIC.pid = query.PROLIFIC_PID || PROLIFIC.pid;
  PROLIFIC.study = query.STUDY_ID || PROLIFIC.study;
  PROLIFIC.session = query.SESSION_ID || PROLIFIC.session;
  const run = String(jatos.studyResultId);
  const kept = jatos.studySessionData && jatos.studySessionData.elot_order;
  let order = Number.isInteger(kept) && kept >= 0 && kept < SURVEY.orders.length ? kept : await jatosOrder();
  if (order === null) {    // the batch session could not be written: a stable order from the run
    let hash = 0;
    for (const c of run) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
    order = hash % SURVEY.orders.length;
  }
  if (!jatos.studySessionData || typeof jatos.studySessionData !== "object") jatos.studySessionData = {};
  try {
    jatos.studySessionData.elot_order = order;
    await jatos.setStudySessionData(jatos.studySessionData);
  } catch (e) { /* a reload then draws its order again */ }
  // the screens answered before a reload (kept in the study session as each reached JATOS): not asked again
  const keptDone = jatos.studySessionData.elot_done;
  const done = keptDone && typeof keptDone === "object" && !Array.isArray(keptDone) ? keptDone : {};
  jatos.studySessionData.elot_done = done;
  return {online: false, jatos: true, token: null, participant: PROLIFIC.pid || "jatos-" + run, order: order,
          run: run, done: done};
}

/* Each trial, as it ends, appended to the run's result data as one line of JSON, in order. */
const jatosResults = {
  chain: Promise.resolve(),
  failed: 0,
  add(data, session) {
    if (!data.elot_step) return;
    const line = JSON.stringify(Object.assign({}, data, {
      participant: session.participant, survey_id: SURVEY.id, order: session.order,
      condition: SURVEY.orders[session.order].condition, elot_session: session.run,
      prolific_pid: PROLIFIC.pid, study_id: PROLIFIC.study, session_id: PROLIFIC.session})) + "\n";
    this.chain = this.chain.then(() => jatos.appendResultData(line))
      .then(() => this.done(data, session), (e) => {
        this.failed += 1; console.error("JATOS did not take step " + data.elot_step, e);
      });
  },
  /* A step JATOS has is marked done in the study session (as the server's "done"), so a
     reload resumes at the first screen not answered; a failure to mark it only means the
     screen is asked again (import keeps the first answer of a study result). */
  async done(data, session) {
    session.done[data.elot_step] = data.elot_kind === "comprehension" ? {passed: data.elot_passed === true} : {};
    try {
      jatos.studySessionData.elot_done = session.done;
      await jatos.setStudySessionData(jatos.studySessionData);
    } catch (e) { console.error("JATOS did not keep the study session", e); }
  },
  drained() { return this.chain; },
};

/* -- Prolific: where a participant goes at the end ------------------------------------- */

/* Whether the participant answered the comprehension questions wrongly at both attempts. */
function failedChecks(jsPsych, session) {
  return [1, 2].every((attempt) => {
    const step = "check-" + attempt;
    const tried = step in session.done || jsPsych.data.get().filter({elot_step: step}).count() > 0;
    return tried && !passedCheck(jsPsych, session, attempt);
  });
}

/* Where the participant goes at the end ("" for nowhere): Prolific with the screen-out
   code after failing both checks (when the survey has one), else with the completion
   code, else the completion URL. */
function endUrl(screened) {
  const prolific = SURVEY.prolific;
  if (prolific) return screened && prolific.screenout_url ? prolific.screenout_url : prolific.completion_url;
  return SURVEY.settings.completion_url || "";
}

/* Ends the study at once for a participant who failed both checks, when there is a
   screen-out code to send them back with. */
function screenOutScreen(jsPsych, session) {
  return {
    timeline: [{type: jsPsychHtmlButtonResponse, stimulus: '<div class="elot-text">' + TEXT.screenedOut + "</div>",
                choices: [], on_load: () => jsPsych.abortExperiment()}],
    conditional_function: () => Boolean(SURVEY.prolific && SURVEY.prolific.screenout_url) &&
      failedChecks(jsPsych, session),
  };
}

/* -- screens ---------------------------------------------------------------------------- */

function consentScreen() {
  return {
    type: jsPsychHtmlButtonResponse,
    // a researcher's own consent may say {minutes}: the estimate made at build time
    stimulus: '<div class="elot-text">' + (SURVEY.settings.consent_html ?
      SURVEY.settings.consent_html.replace(/\{minutes\}/g, String(SURVEY.duration_minutes || ""))
        .replace(/\{contact\}/g, contactLink()) :
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
      esc(first.segments[0].image) + '" alt="a ' + esc(TEXT.picture) + '"></div>',
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
    '<img id="elot-stimulus" src="' + esc(segment.image) + '" alt="the ' + esc(TEXT.picture) + ', part ' + (k + 1) + '">' +
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
  if (scenario.gems > 0) {   // a food-truck survey asks no goal question
    html += '<fieldset class="elot-goals"><legend>' + esc(TEXT.goals) + "</legend>";
    for (let g = 1; g <= scenario.gems; g++) {
      html += '<label><input type="checkbox" name="goal_' + g + '" value="1">' + gemIcon(g).replace("elot-inline", "") +
        " " + esc(TEXT.gem(g)) + "</label>";
    }
    html += "</fieldset>";
  }
  html += "<fieldset><legend>" + esc(TEXT.statements(order.condition)) + "</legend>";
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
  const session = IN_JATOS ? await jatosSession() : await startSession();
  outbox.session = session;
  outbox.flush();
  const order = SURVEY.orders[session.order];
  const jsPsych = initJsPsych({
    on_trial_finish: (data) => session.jatos ? jatosResults.add(data, session) : outbox.add(data),
    on_finish: () => finish(jsPsych, session),
  });
  jsPsych.data.addProperties({participant: session.participant, prolific_pid: PROLIFIC.pid,
                              study_id: PROLIFIC.study, session_id: PROLIFIC.session, survey_id: SURVEY.id,
                              order: session.order, condition: order.condition});
  const pending = new Set(outbox.items.filter((item) => !item.token || item.token === session.token)
    .map((item) => item.step));
  const todo = (screen) => !(screen.data.elot_step in session.done) && !pending.has(screen.data.elot_step);
  const images = new Set(SURVEY.gem_icons);
  for (const trial of order.trials) {
    for (const segment of SURVEY.scenarios.find((s) => s.name === trial.scenario).segments) images.add(segment.image);
  }
  const timeline = [{type: jsPsychPreload, images: Array.from(images)}];
  timeline.push(...[consentScreen()].filter(todo));
  timeline.push({
    timeline: [{type: jsPsychHtmlButtonResponse, stimulus: declinedText(), choices: [],
                on_load: () => jsPsych.abortExperiment(declinedText())}],
    conditional_function: () => {
      const rows = jsPsych.data.get().filter({elot_step: "consent"}).values();
      return rows.length > 0 && rows[0].elot_agreed === false;
    },
  });
  timeline.push(...tutorialScreens(jsPsych, session, order, 1).filter(todo));
  timeline.push({timeline: tutorialScreens(jsPsych, session, order, 2).filter(todo),
                 conditional_function: () => !passedCheck(jsPsych, session, 1)});
  timeline.push(screenOutScreen(jsPsych, session));
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
  if (jsPsych.data.get().filter({elot_step: "consent", elot_agreed: false}).count() > 0) {
    if (session.jatos) {     // the run ends, unsuccessful, once JATOS has the consent trial
      await jatosResults.drained();
      endJatosRun(false, "declined consent");
    }
    return;
  }
  display.innerHTML = '<div class="elot-text">' + TEXT.saving + "</div>";
  if (session.online) {
    await outbox.drained();
    if (outbox.refused.some((item) => item.token === session.token)) {   // never "saved" when it is not
      display.innerHTML = '<div class="elot-text">' + TEXT.notSaved() + "</div>";
      offerDownload(jsPsych, session, display);
      return;
    }
  } else if (session.jatos) {
    await jatosResults.drained();
  }
  const screened = failedChecks(jsPsych, session);
  const url = endUrl(screened);
  if (url) {
    display.innerHTML = '<div class="elot-text">' + (screened && SURVEY.prolific && SURVEY.prolific.screenout_url ?
      TEXT.screenedOut : TEXT.redirect) + "</div>";
    if (session.jatos) jatos.endStudyAndRedirect(url);     // its data went trial by trial
    else window.location.assign(url);
    return;
  }
  if (session.jatos) {
    display.innerHTML = '<div class="elot-text">' + TEXT.saved + "</div>";
    jatos.endStudy();      // its data went trial by trial: nothing sent here, which would replace them
    return;
  }
  display.innerHTML = '<div class="elot-text">' + TEXT.saved + "</div>";
  if (!session.online) offerDownload(jsPsych, session, display);   // no server, no JATOS: the participant keeps them
}

/* What a participant who declines reads (with Prolific: return the submission). */
function declinedText() {
  return SURVEY.prolific || PROLIFIC.pid ? TEXT.declinedProlific : TEXT.declined;
}

/* Ends the JATOS run where the page is (the participant keeps reading it): JATOS records
   it as successful or not, with the message. jatos.endStudyAjax does so without leaving
   the page; a jatos.js without it ends with endStudy (JATOS's end page). */
function endJatosRun(successful, message) {
  if (typeof jatos.endStudyAjax === "function") return jatos.endStudyAjax(successful, message);
  return jatos.endStudy(successful, message);
}

/* Buttons that save the participant's data (jsPsych's JSON or CSV). */
function offerDownload(jsPsych, session, display) {
  for (const format of ["json", "csv"]) {
    const button = document.createElement("button");
    button.className = "jspsych-btn";
    button.textContent = TEXT.download + " (" + format.toUpperCase() + ")";
    button.addEventListener("click",
      () => jsPsych.data.get().localSave(format, "answers-" + session.participant + "." + format));
    display.querySelector(".elot-text").appendChild(button);
  }
}

if (IN_JATOS) jatos.onLoad(main);      // jatos.js is ready (its ids, the batch session) only then
else window.addEventListener("DOMContentLoaded", main);
