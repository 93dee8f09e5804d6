// The Continental web table. Plain JavaScript, no build step.
// Every move offered comes from the server's list of legal moves ("legal": [{id, text}]) in
// the grammar of the engine's action texts; the page only groups them into buttons and clicks.
"use strict";

const SUIT = {
  C: { glyph: "\u2663", name: "clubs" },
  D: { glyph: "\u2666", name: "diamonds" },
  H: { glyph: "\u2665", name: "hearts" },
  S: { glyph: "\u2660", name: "spades" },
};
const RANK_NAME = { T: "10" };

const ui = {
  mode: null, // "game" or "replay"
  gameId: null,
  replayId: null,
  state: null,
  selected: null, // card text selected in the hand
  selectedIndex: -1,
  delay: 700,
  roundsShown: 0,
  overlayOpen: false,
  botTimer: null,
  busy: false,
  replayStep: 0,
  replaySteps: 0,
  replaySeat: null,
  replayTimer: null,
  prevHand: [],
  options: null,
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// ------------------------------------------------------------------ server calls

// Every request that changes something is a JSON POST (the server refuses anything else).
// ``raw`` sends a text as it is: a replay file's seed must not pass through a JS number.
async function api(method, path, body, raw) {
  const opts = { method, headers: {} };
  if (method !== "GET") {
    opts.headers["Content-Type"] = "application/json";
    opts.body = raw !== undefined ? raw : JSON.stringify(body === undefined ? {} : body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    data = { error: `server answered ${res.status}` };
  }
  if (!res.ok) {
    const err = new Error(data.error || `server answered ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return data;
}

// The game in progress survives a reload (its id in the address) and a second tab (storage).
const STORE_KEY = "continental.game";

function rememberGame(id) {
  try {
    if (id) localStorage.setItem(STORE_KEY, id);
    else localStorage.removeItem(STORE_KEY);
  } catch (e) { /* storage off: the address still holds the id */ }
  const want = id ? `#game=${id}` : "";
  if (location.hash !== want) history.replaceState(null, "", location.pathname + location.search + want);
}

function storedGame() {
  const m = /^#game=([A-Za-z0-9_-]{10,64})$/.exec(location.hash);
  if (m) return m[1];
  try {
    return localStorage.getItem(STORE_KEY);
  } catch (e) {
    return null;
  }
}

function showError(msg) {
  const box = $("error");
  box.textContent = msg;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (box.hidden = true), 6000);
}

// ------------------------------------------------------------------ cards

function cardLabel(text) {
  if (text === "JK") return "joker";
  return `${RANK_NAME[text[0]] || text[0]} of ${SUIT[text[1]].name}`;
}

function cardNode(text, opts = {}) {
  const isJoker = text === "JK";
  const suit = isJoker ? "J" : text[1];
  const rank = isJoker ? "JK" : RANK_NAME[text[0]] || text[0];
  const glyph = isJoker ? "\u2605" : SUIT[suit].glyph;
  const cls = ["card", `suit-${suit}`];
  if (rank === "10") cls.push("ten");
  if (opts.small) cls.push("small");
  if (opts.tiny) cls.push("tiny");
  if (opts.big) cls.push("big");
  if (opts.extra) cls.push(opts.extra);
  const tag = opts.button ? "button" : "div";
  const node = el(tag, {
    class: cls.join(" "),
    "data-card": text,
    title: cardLabel(text),
    "aria-label": cardLabel(text),
    type: opts.button ? "button" : null,
  });
  node.append(
    el("span", { class: "corner", text: rank + (isJoker ? "" : glyph) }),
    el("span", { class: "pip", text: glyph }),
  );
  return node;
}

// ------------------------------------------------------------------ the start page

async function loadOptions() {
  const opts = await api("GET", "/api/options");
  ui.options = opts;
  const game = $("f-game");
  const keep = game.value;
  game.innerHTML = "";
  for (const [name, spec] of Object.entries(opts.games)) game.append(el("option", { value: name, text: spec.label }));
  if (keep && opts.games[keep]) game.value = keep;
  game.onchange = fillPresets;
  fillPresets();
  // a trained model is offered once the server has loaded it: ask again in a moment
  clearTimeout(loadOptions.timer);
  if (opts.models_loading && opts.models_loading.length) {
    loadOptions.timer = setTimeout(() => { if (!ui.mode) loadOptions().catch(() => {}); }, 3000);
  }
  const files = $("replay-files");
  files.innerHTML = "";
  files.append(el("option", { value: "", text: opts.replay_files.length ? "(choose a file)" : "(none in results/)" }));
  for (const f of opts.replay_files) files.append(el("option", { value: f, text: f }));
}

function fillPresets() {
  const spec = ui.options.games[$("f-game").value];
  const preset = $("f-preset");
  const keep = preset.value;
  preset.innerHTML = "";
  for (const name of Object.keys(spec.presets)) preset.append(el("option", { value: name, text: name }));
  if (keep && spec.presets[keep]) preset.value = keep;
  preset.onchange = fillPlayers;
  // the fields this game takes (the server's list): the contract game's rounds, the fifteen-card game's hands
  $("f-rounds-label").hidden = !spec.fields.includes("rounds");
  $("f-hands-label").hidden = !spec.fields.includes("hands");
  fillPlayers();
}

function fillPlayers() {
  const spec = ui.options.games[$("f-game").value].presets[$("f-preset").value];
  const players = $("f-players");
  const keep = Number(players.value) || 4;
  players.innerHTML = "";
  for (let n = spec.min_players; n <= spec.max_players; n++) players.append(el("option", { value: n, text: n }));
  players.value = Math.min(Math.max(keep, spec.min_players), spec.max_players);
  players.onchange = fillOpponents;
  fillOpponents();
}

function fillOpponents() {
  const n = Number($("f-players").value);
  const box = $("f-opponents");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.innerHTML = "";
  const offered = ui.options.games[$("f-game").value].opponents;
  for (let i = 0; i < n - 1; i++) {
    const sel = el("select", { name: `opponent${i}`, class: "opponent" });
    const labels = ui.options.games[$("f-game").value].labels || {};
    for (const name of offered) {
      const l = labels[name];
      sel.append(el("option", { value: name, text: l ? `${l.label} \u2014 ${l.about}` : name }));
    }
    sel.value = offered.includes(old[i]) ? old[i] : offered.includes("greedy") ? "greedy" : offered[0];
    box.append(el("label", {}, `Opponent ${i + 1} `, sel));
  }
  const seat = $("f-seat");
  const keep = seat.value || "0";
  seat.innerHTML = "";
  for (let s = 0; s < n; s++) seat.append(el("option", { value: s, text: s === 0 ? "0 (deals first)" : String(s) }));
  seat.value = Number(keep) < n ? keep : "0";
}

async function startGame(ev) {
  ev.preventDefault();
  const seedText = $("f-seed").value.trim();
  if (seedText && !/^\d+$/.test(seedText)) {
    showError(`seed ${JSON.stringify(seedText)} must be a whole number (or empty for a random one)`);
    return;
  }
  const body = {
    game: $("f-game").value,
    preset: $("f-preset").value,
    opponents: [...document.querySelectorAll("#f-opponents select")].map((s) => s.value),
    seat: Number($("f-seat").value),
    seed: seedText || null, // a string: JS numbers are exact only below 2^53
    name: $("f-name").value.trim() || "you",
  };
  const fields = ui.options.games[body.game].fields;
  if (fields.includes("hands") && $("f-hands").value) body.hands = Number($("f-hands").value);
  if (fields.includes("rounds") && $("f-rounds").value) body.rounds = [Number($("f-rounds").value)];
  ui.delay = Number($("f-speed").value);
  try {
    const data = await api("POST", "/api/games", body);
    enterTable("game");
    ui.gameId = data.id;
    rememberGame(data.id);
    ui.roundsShown = 0;
    show(data.state);
  } catch (e) {
    showError(e.message);
  }
}

async function openReplay() {
  const upload = $("replay-upload").files[0];
  const name = $("replay-files").value;
  let raw;
  if (upload) {
    if (upload.size > 1000000) {
      showError(`${upload.name} is ${upload.size} bytes: a replay file is at most 1,000,000`);
      return;
    }
    raw = await upload.text(); // sent as it is: JSON.parse would round a seed above 2^53
  } else if (name) raw = JSON.stringify({ file: name });
  else {
    showError("choose a replay file to upload or one from results/");
    return;
  }
  try {
    const data = await api("POST", "/api/replays", undefined, raw);
    startReplay(data);
  } catch (e) {
    showError(e.message);
  }
}

function startReplay(data) {
  enterTable("replay");
  ui.replayId = data.id;
  ui.replaySteps = data.steps;
  ui.replayStep = 0;
  ui.replaySeat = data.state.replay.recorded_seat;
  const seatSel = $("r-seat");
  seatSel.innerHTML = "";
  data.state.names.forEach((n, s) => seatSel.append(el("option", { value: s, text: n })));
  seatSel.value = ui.replaySeat;
  show(data.state);
}

function enterTable(mode) {
  ui.mode = mode;
  ui.selected = null;
  ui.prevHand = [];
  $("start-page").hidden = true;
  $("table-page").hidden = false;
  $("replay-controls").hidden = mode !== "replay";
  $("auto-pass-label").hidden = mode !== "game";
  closeOverlay();
}

function askLeave() {
  const s = ui.state;
  if (ui.mode !== "game" || !s || s.game_over) return leaveTable();
  openOverlay("Leave this game?", [
    el("p", { text: "The game will be abandoned: this browser will not come back to it. (A reload or a second tab keeps it.)" }),
  ], [
    { label: "Stay at the table", primary: true, action: closeOverlay },
    { label: "Leave", id: "confirm-leave", action: leaveTable },
  ]);
}

function leaveTable() {
  if (ui.mode === "game") rememberGame(null);
  clearTimeout(ui.botTimer);
  stopReplayPlay();
  ui.mode = null;
  ui.gameId = null;
  ui.replayId = null;
  $("table-page").hidden = true;
  $("start-page").hidden = false;
  closeOverlay();
  loadOptions().catch((e) => showError(e.message));
}

// ------------------------------------------------------------------ moves

function legalTexts() {
  return ui.state && ui.state.your_move ? ui.state.legal.map((a) => a.text) : [];
}

async function play(text) {
  if (ui.mode !== "game" || ui.busy) return;
  ui.busy = true;
  try {
    const state = await api("POST", `/api/games/${ui.gameId}/move`, { action: text });
    ui.selected = null;
    show(state);
  } catch (e) {
    gameError(e);
  } finally {
    ui.busy = false;
  }
}

// A refused request: a vanished game is explained and left; a request another tab answered
// first (409) is followed by the game's current state; anything else is shown.
function gameError(e, quiet) {
  if (e.status === 404 && ui.mode === "game") return gameGone(e.message);
  if (e.status === 409 && ui.mode === "game" && ui.gameId) {
    if (!quiet) showError(e.message);
    return refresh();
  }
  showError(e.message);
}

async function refresh() {
  try {
    show(await api("GET", `/api/games/${ui.gameId}`));
  } catch (e) {
    if (e.status === 404) gameGone(e.message);
    else showError(e.message);
  }
}

function gameGone(message) {
  clearTimeout(ui.botTimer);
  rememberGame(null);
  ui.mode = "gone";
  openOverlay("This game is no longer on the server", [
    el("p", { text: `The server answered: ${message}.` }),
    el("p", { text: "Games in progress are kept for a few hours after their last move, finished ones for half an hour, and none survive a restart of the server." }),
  ], [{ label: "New game", primary: true, action: leaveTable }]);
}

function scheduleBot() {
  clearTimeout(ui.botTimer);
  const s = ui.state;
  if (ui.mode === "game" && s && s.your_move && !ui.overlayOpen && $("auto-pass").checked && s.phase === "claim") {
    // the person chose to decline every claim: answer "pass" after the same short delay
    ui.botTimer = setTimeout(() => play("pass"), Math.round(ui.delay / 3));
    return;
  }
  if (ui.mode !== "game" || !s || s.game_over || s.your_move || ui.overlayOpen) return;
  const last = s.log.length ? s.log[s.log.length - 1] : "";
  const quick = / passes on /.test(last) ? 3 : 1;
  ui.botTimer = setTimeout(advanceBot, Math.round(ui.delay / quick));
}

async function advanceBot() {
  if (ui.mode !== "game" || ui.busy) return;
  ui.busy = true;
  try {
    const state = await api("POST", `/api/games/${ui.gameId}/advance`);
    show(state);
  } catch (e) {
    gameError(e, true); // a 409: another tab of this game moved the bot first
  } finally {
    ui.busy = false;
  }
}

// Moves a selected hand card can make: [{label, text}].
function owner(meld) {
  return ui.state.seats[meld.owner].you ? "your" : `${meld.owner_name}'s`;
}

function cardMoves(card) {
  const s = ui.state;
  const out = [];
  for (const t of legalTexts()) {
    const p = t.split(" ");
    if (p[0] === "discard" && p[1] === card) out.unshift({ label: `Discard ${card}`, text: t, key: "Enter" });
    if (p[0] === "out" && p[1] === card) out.push({ label: `Discard ${card} and go out`, text: t });
    if (["rummy", "color", "continental"].includes(p[0]) && p[1] === card) out.push({ label: `Discard ${card} and announce ${p[0]}`, text: t });
    if (p[0] === "layoff" && p[1] === card) {
      const meld = s.table[Number(p[2])];
      const end = p[3] ? ` (${p[3]} end)` : "";
      out.push({ label: `Lay off on ${owner(meld)} ${meld.kind} #${p[2]}${end}`, text: t, meld: Number(p[2]) });
    }
    if (p[0] === "swap" && p[1] === card) {
      const meld = s.table[Number(p[2])];
      out.push({ label: `Swap for the joker in ${owner(meld)} ${meld.kind} #${p[2]}`, text: t, meld: Number(p[2]) });
    }
  }
  let n = 1;
  for (const m of out) if (!m.key) m.key = String(n++);
  return out;
}

function simpleMoves() {
  const s = ui.state;
  const top = s.discard_top;
  const labels = {
    draw: ["Draw from the stock", "D"],
    take: [`Take ${top}`, "T"],
    claim: [`Claim ${top}`, "C"],
    pass: ["Pass", "P"],
    out: ["Go out with the cards dealt", "O"],
    laydown: [`Lay down (${s.contract.text})`, "L"],
    close: ["Close", "X"],
    knock: ["Knock", "K"],
    rummy: ["Announce rummy", "R"],
    color: ["Announce color", ""],
    continental: ["Announce continental", ""],
    buy: ["Buy back", "B"],
  };
  const out = [];
  for (const t of legalTexts()) {
    if (labels[t]) out.push({ label: labels[t][0], key: labels[t][1] || null, text: t });
    const p = t.split(" ");
    if (p[0] === "movejoker") {
      out.push({ label: `Move the joker of run #${p[1]} to the ${p[3]} end of run #${p[2]}`, text: t });
    }
  }
  return out;
}

// ------------------------------------------------------------------ drawing the table

function show(state) {
  const before = ui.state;
  ui.state = state;
  ui.version = (ui.version || 0) + 1;
  document.body.dataset.version = ui.version; // lets a test wait for the server's answer
  render();
  if (ui.mode === "game") {
    const played = state.rounds_played.length;
    if (played > ui.roundsShown) {
      ui.roundsShown = played;
      roundSummary(state);
    } else if (state.game_over && !ui.overlayOpen) {
      gameOver(state);
    }
    scheduleBot();
  }
  return before;
}

function render() {
  const s = ui.state;
  // every game's words come with its state (its table module on the server)
  $("t-title").textContent = s.title;
  $("t-round").textContent = s.game_over ? "game over" : s.round_text;
  $("t-contract").textContent = s.goal_text;
  $("auto-pass-label").hidden = ui.mode !== "game" || !s.auto_pass; // a game with claims out of turn
  renderSeats(s);
  renderPiles(s);
  renderMelds(s);
  $("prompt").textContent = s.replay ? replayPrompt(s) : s.prompt;
  $("prompt").classList.toggle("your-move", !!s.your_move);
  renderActions(s);
  renderHand(s);
  renderCardMoves(s);
  renderAllMoves(s);
  renderLog(s);
  const sheet = $("sheet");
  sheet.innerHTML = "";
  if (s.rounds_played.length) sheet.append(scoreSheet(s));
  else sheet.append(el("p", { class: "muted", text: `No ${s.round_label || "round"} finished yet.` }));
  if (s.replay) {
    $("r-step").textContent = `move ${s.replay.step} / ${s.replay.steps}`;
  }
}

function replayPrompt(s) {
  const r = s.replay;
  if (r.step >= r.steps) return `End of the record. Final scores: ${s.names.map((n, i) => `${n} ${r.final_scores[i]}`).join(", ")}`;
  return `${s.prompt}${r.next ? " · " + r.next : ""}`;
}

function renderSeats(s) {
  const box = $("seats");
  box.innerHTML = "";
  for (const seat of s.seats) {
    const cls = ["seat"];
    if (seat.you) cls.push("you");
    if (s.actor === seat.seat) cls.push("active");
    const backs = el("div", { class: "backs", "aria-hidden": "true" });
    for (let i = 0; i < Math.min(seat.hand_size, 20); i++) backs.append(el("span", { class: "mini-back" }));
    const tags = el("div", { class: "tags" });
    if (seat.dealer) tags.append(el("span", { class: "tag", text: "dealer" }));
    if (seat.laid_down !== null) tags.append(el("span", { class: seat.laid_down ? "tag down" : "tag", text: seat.laid_down ? "laid down" : "not down" }));
    if (seat.claims) tags.append(el("span", { class: "tag claims", text: `claims ${seat.claims}` }));
    const known = seat.known.length
      ? el("div", { class: "known", title: "cards this player picked up and still holds" }, el("span", { class: "label", text: "picked up:" }), ...seat.known.map((c) => cardNode(c, { tiny: true })))
      : null;
    box.append(
      el(
        "div",
        { class: cls.join(" "), "data-seat": seat.seat },
        el("div", { class: "seat-head" },
          el("span", { class: "seat-name", text: seat.name + (seat.you && seat.name.toLowerCase() !== "you" ? " (you)" : "") }),
          el("span", { class: "score", text: `${seat.score} ${s.score_label || "pts"}` })),
        el("div", { class: "hand-size" }, backs, el("span", { text: `${seat.hand_size} card${seat.hand_size === 1 ? "" : "s"}` })),
        tags,
        known,
      ),
    );
  }
}

function renderPiles(s) {
  $("stock-size").textContent = `stock ${s.stock_size}`;
  const d = $("discard-card");
  d.innerHTML = "";
  if (s.discard_top) d.append(cardNode(s.discard_top, { big: true }));
  else if (s.discard_face_down) d.append(el("div", { class: "card back big", title: "the closing card, face down" }));
  else d.append(el("div", { class: "card empty big", text: "empty" }));
  $("discard-size").textContent = `discard ${s.discard_size}`;
}

function renderMelds(s) {
  const box = $("melds");
  box.innerHTML = "";
  if (s.no_melds_text) {
    const last = s.rounds_played[s.rounds_played.length - 1];
    box.append(el("div", { class: "no-melds", text: s.no_melds_text }));
    if (last && last.melds.length) box.append(winnerMelds(s, last));
    return;
  }
  if (!s.table.length) {
    box.append(el("div", { class: "no-melds", text: "No melds on the table yet." }));
    return;
  }
  const targets = new Map();
  if (ui.selected) for (const m of cardMoves(ui.selected)) if (m.meld !== undefined) {
    if (!targets.has(m.meld)) targets.set(m.meld, []);
    targets.get(m.meld).push(m);
  }
  for (const seat of s.seats) {
    const melds = s.table.filter((m) => m.owner === seat.seat);
    if (!melds.length) continue;
    const group = el("div", { class: "meld-owner" }, el("div", { class: "owner-name", text: `${seat.name}` }));
    for (const m of melds) {
      const moves = targets.get(m.index) || [];
      const node = el(
        "div",
        {
          class: "meld" + (moves.length ? " target" : ""),
          "data-meld": m.index,
          title: `${m.owner_name}'s ${m.kind} #${m.index}`,
          onclick: moves.length === 1 ? () => play(moves[0].text) : null,
        },
        el("span", { class: "meld-label", text: `#${m.index} ${m.kind}` }),
        el("span", { class: "meld-cards" }, ...m.cards.map((c) => cardNode(c, { small: true }))),
      );
      if (moves.length > 1) {
        // a joker on a run: one button per end, on the meld itself
        for (const mv of moves) {
          const end = mv.text.split(" ")[3] || "here";
          node.append(el("button", { type: "button", class: "end-button", text: end, onclick: () => play(mv.text) }));
        }
      }
      group.append(node);
    }
    box.append(group);
  }
}

function winnerMelds(s, r) {
  const group = el("div", { class: "meld-owner" }, el("div", { class: "owner-name", text: `${s.names[r.closer]} ${r.verb} in ${s.round_label} ${r.round} with` }));
  for (const m of r.melds) group.append(el("div", { class: "meld" }, el("span", { class: "meld-cards" }, ...m.split(" ").map((c) => cardNode(c, { small: true })))));
  return group;
}

function renderActions(s) {
  const box = $("actions");
  box.innerHTML = "";
  for (const m of simpleMoves()) {
    box.append(
      el("button", { type: "button", class: "move", "data-move": m.text, onclick: () => play(m.text) },
        m.label, m.key ? el("kbd", { text: m.key }) : null),
    );
  }
}

function renderHand(s) {
  const box = $("hand");
  box.innerHTML = "";
  const flat = [];
  const fresh = newCards(ui.prevHand, s.hand.flatMap((g) => g.cards));
  ui.prevHand = s.hand.flatMap((g) => g.cards);
  const playable = new Set(legalTexts().map((t) => t.split(" ")).filter((p) => ["discard", "layoff", "swap", "out", "rummy", "color", "continental"].includes(p[0]) && p[1]).map((p) => p[1]));
  for (const group of s.hand) {
    const g = el("div", { class: `hand-group group-${group.suit}`, title: group.suit });
    for (const c of group.cards) {
      const index = flat.length;
      flat.push(c);
      const isNew = fresh.has(c) && fresh.get(c) > 0;
      if (isNew) fresh.set(c, fresh.get(c) - 1);
      const node = cardNode(c, { button: true, extra: [isNew ? "new" : "", ui.selectedIndex === index && ui.selected === c ? "selected" : "", playable.has(c) ? "playable" : ""].join(" ").trim() });
      node.dataset.index = index;
      node.addEventListener("click", () => clickCard(c, index));
      g.append(node);
    }
    box.append(g);
  }
  ui.flatHand = flat;
  if (ui.selected && flat[ui.selectedIndex] !== ui.selected) {
    ui.selectedIndex = flat.indexOf(ui.selected);
    if (ui.selectedIndex < 0) ui.selected = null;
  }
}

function newCards(before, after) {
  const count = new Map();
  for (const c of after) count.set(c, (count.get(c) || 0) + 1);
  for (const c of before) if (count.has(c)) count.set(c, count.get(c) - 1);
  if (!before.length) return new Map();
  let fresh = 0;
  for (const n of count.values()) if (n > 0) fresh += n;
  return fresh > 3 ? new Map() : count; // a new deal is not "new cards"
}

function clickCard(card, index) {
  if (ui.mode !== "game") return;
  if (ui.selected === card && ui.selectedIndex === index) {
    const discard = `discard ${card}`;
    if (legalTexts().includes(discard)) play(discard);
    else showError(`${card} cannot be discarded now`);
    return;
  }
  ui.selected = card;
  ui.selectedIndex = index;
  render();
  focusSelected();
}

function focusSelected() {
  const node = document.querySelector(`#hand .card[data-index="${ui.selectedIndex}"]`);
  if (node) node.focus();
}

function renderCardMoves(s) {
  const box = $("card-moves");
  box.innerHTML = "";
  if (!ui.selected || !s.your_move) return;
  const moves = cardMoves(ui.selected);
  box.append(el("span", { class: "selected-name", text: `${cardLabel(ui.selected)}:` }));
  if (!moves.length) box.append(el("span", { class: "muted", text: " no move with this card now" }));
  for (const m of moves) {
    box.append(el("button", { type: "button", class: "move", "data-move": m.text, onclick: () => play(m.text) }, m.label, el("kbd", { text: m.key })));
  }
}

function renderAllMoves(s) {
  const box = $("all-moves-list");
  box.innerHTML = "";
  $("all-moves").hidden = !s.your_move;
  for (const t of legalTexts()) box.append(el("button", { type: "button", class: "move small", "data-move": t, onclick: () => play(t) }, t));
}

function renderLog(s) {
  const box = $("log");
  box.innerHTML = "";
  for (const line of s.log) box.append(el("li", { class: /^(Round|Hand) /.test(line) ? "round-line" : "", text: line }));
  box.scrollTop = box.scrollHeight;
}

// ------------------------------------------------------------------ round summary and game end

function pointsTable(s, roundIndex) {
  const r = s.rounds_played[roundIndex];
  const label = `${s.score_label === "chips" ? "chips" : "points"} this ${s.round_label || "round"}`;
  const rows = s.seats.map((seat) =>
    el("tr", { class: r.closer === seat.seat ? "closer" : "" },
      el("td", { text: seat.name }),
      el("td", { class: "num", text: String(r.points[seat.seat]) }),
      el("td", { class: "num", text: String(r.totals ? r.totals[seat.seat] : s.rounds_played.slice(0, roundIndex + 1).reduce((a, x) => a + x.points[seat.seat], 0)) })));
  return el("table", { class: "points" },
    el("thead", {}, el("tr", {}, el("th", { text: "player" }), el("th", { text: label }), el("th", { text: "total" }))),
    el("tbody", {}, ...rows));
}

function roundSummary(s) {
  const r = s.rounds_played[s.rounds_played.length - 1];
  const who = r.closer === null ? s.nobody_text : `${s.names[r.closer]} ${r.verb}`;
  const body = [el("p", { text: `${who} after ${r.turns} turns.` })];
  if (r.melds && r.melds.length) body.push(winnerMelds(s, r)); // a side game's winning melds
  const end = (s.round_ends || [])[s.rounds_played.length - 1];
  if (end) body.push(revealNode(s, end));
  body.push(pointsTable(s, s.rounds_played.length - 1));
  const segment = s.round_label || "round";
  openOverlay(`${segment[0].toUpperCase()}${segment.slice(1)} ${r.round} over`, body, [
    { label: s.game_over ? "See the result" : `Next ${s.round_label || "round"}`, primary: true, action: () => { closeOverlay(); if (s.game_over) gameOver(ui.state); else scheduleBot(); } },
  ]);
}

// What a finished round showed: each hand as counted, with its points, and the final table.
function revealNode(s, end) {
  const box = el("div", { class: "reveal" });
  if (end.table && end.table.length) {
    const table = el("div", { class: "reveal-table" }, el("div", { class: "owner-name", text: "The table at the end" }));
    for (const m of end.table) {
      table.append(el("div", { class: "meld" },
        el("span", { class: "meld-label", text: `${s.names[m.owner]}: ${m.kind}` }),
        el("span", { class: "meld-cards" }, ...m.cards.map((c) => cardNode(c, { tiny: true })))));
    }
    box.append(table);
  }
  if (end.shown) {
    const unit = s.score_label || "pts";
    for (const seat of s.seats) {
      const cards = end.shown[seat.seat];
      if (cards === undefined) continue;
      const row = el("div", { class: "reveal-hand", "data-seat": seat.seat },
        el("span", { class: "reveal-name", text: `${s.names[seat.seat]}` }),
        el("span", { class: "reveal-points", text: `${end.points[seat.seat] > 0 && unit === "chips" ? "+" : ""}${end.points[seat.seat]} ${unit}` }));
      const shown = el("span", { class: "meld-cards" });
      if (cards === null) shown.append(el("span", { class: "muted", text: s.not_shown_text || "not shown" }));
      else if (!cards.length) shown.append(el("span", { class: "muted", text: end.closer === seat.seat ? "went out" : "no cards" }));
      else shown.append(...cards.map((c) => cardNode(c, { tiny: true })));
      if (end.deadwood && end.deadwood[seat.seat] !== null) shown.append(el("span", { class: "muted", text: ` deadwood ${end.deadwood[seat.seat]}` }));
      row.append(shown);
      box.append(row);
    }
  }
  return box;
}

// Every finished round's points per player, with running totals.
function scoreSheet(s) {
  const label = s.round_label || "round";
  const head = el("tr", {}, el("th", { text: label }), ...s.seats.map((seat) => el("th", { class: "num", text: s.names[seat.seat] })));
  const rows = [];
  const totals = s.seats.map(() => 0);
  for (const r of s.rounds_played) {
    r.points.forEach((p, i) => (totals[i] += p));
    rows.push(el("tr", {}, el("td", { text: String(r.round) }), ...r.points.map((p, i) => el("td", { class: "num" + (r.closer === i ? " closer-cell" : ""), text: String(p) }))));
  }
  const unit = s.score_label === "chips" ? "chips" : s.score_label || "points";
  const foot = el("tr", { class: "total" }, el("td", { text: `total ${unit}` }), ...s.seats.map((seat) => el("td", { class: "num", text: String(seat.score) })));
  return el("table", { class: "points sheet" }, el("thead", {}, head), el("tbody", {}, ...rows, foot));
}

function gameOver(s) {
  const order = [...s.seats].sort((a, b) => (s.higher_wins ? b.score - a.score : a.score - b.score));
  const rows = order.map((seat) => el("tr", { class: s.winners.includes(seat.seat) ? "winner" : "" },
    el("td", { text: seat.name }), el("td", { class: "num", text: String(seat.score) })));
  const winners = s.winners.map((w) => s.names[w]).join(" and ");
  openOverlay("Game over", [
    el("p", { text: `Winner: ${winners}. Seed ${s.seed}.` }),
    el("table", { class: "points" }, el("thead", {}, el("tr", {}, el("th", { text: "player" }), el("th", { text: "total" }))), el("tbody", {}, ...rows)),
    el("h3", { text: "Score sheet" }),
    scoreSheet(s),
  ], [
    { label: "Download replay", href: `/api/games/${ui.gameId}/record`, id: "download-replay" },
    { label: "Watch the replay", action: watchOwnReplay },
    { label: "Look at the table", action: closeOverlay },
    { label: "New game", primary: true, action: leaveTable },
  ]);
}

async function watchOwnReplay() {
  try {
    const data = await api("POST", `/api/games/${ui.gameId}/replay`);
    startReplay(data);
  } catch (e) {
    showError(e.message);
  }
}

function openOverlay(title, body, buttons) {
  ui.overlayOpen = true;
  $("o-title").textContent = title;
  const b = $("o-body");
  b.innerHTML = "";
  b.append(...body);
  const bb = $("o-buttons");
  bb.innerHTML = "";
  for (const btn of buttons) {
    const node = btn.href
      ? el("a", { class: "button", href: btn.href, download: "", id: btn.id, text: btn.label })
      : el("button", { type: "button", class: btn.primary ? "primary" : "", id: btn.id, text: btn.label, onclick: btn.action });
    bb.append(node);
  }
  $("overlay").hidden = false;
  const primary = bb.querySelector(".primary") || bb.querySelector("button");
  // Focus the main button without scrolling to it: a long dialog (a round's reveal on a phone)
  // opens at its top, its title in view.
  if (primary) primary.focus({ preventScroll: true });
  document.querySelector("#overlay .dialog").scrollTop = 0;
}

function closeOverlay() {
  ui.overlayOpen = false;
  $("overlay").hidden = true;
  scheduleBot();
}

// ------------------------------------------------------------------ replays

async function replayGo(step) {
  step = Math.max(0, Math.min(ui.replaySteps, step));
  try {
    const seat = ui.replaySeat === null ? "" : `?seat=${ui.replaySeat}`;
    const state = await api("GET", `/api/replays/${ui.replayId}/${step}${seat}`);
    ui.replayStep = step;
    show(state);
  } catch (e) {
    showError(e.message);
    stopReplayPlay();
  }
}

function stopReplayPlay() {
  clearInterval(ui.replayTimer);
  ui.replayTimer = null;
  $("r-play").textContent = "play";
}

function toggleReplayPlay() {
  if (ui.replayTimer) return stopReplayPlay();
  $("r-play").textContent = "pause";
  ui.replayTimer = setInterval(() => {
    if (ui.replayStep >= ui.replaySteps) return stopReplayPlay();
    replayGo(ui.replayStep + 1);
  }, 500);
}

// ------------------------------------------------------------------ keyboard

function onKey(ev) {
  if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ui.mode === "replay" && !ui.overlayOpen) {
    if (ev.key === "ArrowRight") { replayGo(ui.replayStep + 1); ev.preventDefault(); }
    if (ev.key === "ArrowLeft") { replayGo(ui.replayStep - 1); ev.preventDefault(); }
    return;
  }
  if (ui.mode !== "game" || ui.overlayOpen || !ui.state || !ui.state.your_move) return;
  const key = ev.key;
  const simple = simpleMoves().find((m) => m.key && m.key.toLowerCase() === key.toLowerCase());
  if (simple) { play(simple.text); ev.preventDefault(); return; }
  const hand = ui.flatHand || [];
  if ((key === "ArrowRight" || key === "ArrowLeft") && hand.length) {
    let i = ui.selectedIndex < 0 ? (key === "ArrowRight" ? 0 : hand.length - 1) : ui.selectedIndex + (key === "ArrowRight" ? 1 : -1);
    i = (i + hand.length) % hand.length;
    ui.selected = hand[i];
    ui.selectedIndex = i;
    render();
    focusSelected();
    ev.preventDefault();
    return;
  }
  if (key === "Escape") { ui.selected = null; ui.selectedIndex = -1; render(); return; }
  if (ui.selected) {
    const m = cardMoves(ui.selected).find((x) => x.key === key);
    if (m) { play(m.text); ev.preventDefault(); }
  }
}

// ------------------------------------------------------------------ wiring

function init() {
  $("start-form").addEventListener("submit", startGame);
  $("replay-open").addEventListener("click", openReplay);
  $("t-leave").addEventListener("click", askLeave);
  $("t-rules").addEventListener("click", showRules);
  $("start-rules").addEventListener("click", showRules);
  $("r-first").addEventListener("click", () => replayGo(0));
  $("r-prev").addEventListener("click", () => replayGo(ui.replayStep - 1));
  $("r-next").addEventListener("click", () => replayGo(ui.replayStep + 1));
  $("r-last").addEventListener("click", () => replayGo(ui.replaySteps));
  $("r-play").addEventListener("click", toggleReplayPlay);
  $("r-seat").addEventListener("change", () => { ui.replaySeat = Number($("r-seat").value); ui.prevHand = []; replayGo(ui.replayStep); });
  document.addEventListener("keydown", onKey);
  $("auto-pass").addEventListener("change", () => { $("auto-pass").blur(); scheduleBot(); });
  loadOptions().catch((e) => showError(e.message));
  resume();
}

// Back to the game in progress after a reload or in a second tab.
async function resume() {
  const id = storedGame();
  if (!id) return;
  try {
    const state = await api("GET", `/api/games/${id}`);
    enterTable("game");
    ui.gameId = id;
    rememberGame(id);
    ui.roundsShown = state.rounds_played.length; // summaries already seen are not shown again
    show(state);
  } catch (e) {
    rememberGame(null);
    const note = $("resume-note");
    note.textContent = e.status === 404
      ? "Your last game is no longer on the server (games are kept a few hours after their last move, and not across a restart). Deal a new one below."
      : `Could not return to your last game: ${e.message}`;
    note.hidden = false;
  }
}

const RULES = {
  contract: [
    "Seven rounds, each with a contract: 2 trios; trio + run; 2 runs; 3 trios; 2 trios + run; trio + 2 runs; 3 runs. A trio is three or more cards of one rank; a run is four or more in sequence of one suit. Jokers are wild.",
    "Your turn: take the top discard or draw from the stock, then discard one card. When another player declines a discard you may claim it out of turn: you take it and a penalty card from the stock.",
    "Once you hold the contract, lay it down in one move. After that you may lay off cards on any meld on the table and swap a natural card for a joker in a run.",
    "Close by laying off or discarding your last card face down. Everyone else scores the cards left in hand (jokers 50, aces 20, K Q J 10 are 10, others their face; the Spanish rules count 9 and 8 as 10 and 7 to 2 as 5). After the last round the lowest total wins.",
  ],
  fifteen: [
    "Fifteen cards each. Draw (stock or discard), then discard. You go out when your fifteen cards, after a discard, form sequences of one suit: 3+3+3+3+3, 4+4+4+3 or 5+4+3+3.",
    "Going out wins chips from every other player. Dealt a winning hand, you may go out at once without drawing. The game ends when someone reaches the chip target, or after the hands chosen.",
  ],
  knock: [
    "Seven cards each; draw, then discard. At the start of your turn you may knock if your deadwood (cards not in trios or runs, aces 1) is 5 or less. Rummy, color and continental are better hands announced with a discard and pay a bonus.",
    "When a hand ends everyone shows their cards and scores their deadwood (aces 15); the announcer scores by the announcement. Over 100 points you are out, unless you buy back in for chips. The last player in takes the pot.",
  ],
};

function showRules() {
  const s = ui.state;
  const game = s ? s.game : $("f-game").value;
  const keys = [["D", "draw"], ["T", "take the discard"], ["C", "claim"], ["P", "pass"], ["L", "lay down"], ["X", "close"], ["K", "knock"], ["O", "go out as dealt"]];
  openOverlay("How to play", [
    ...(RULES[game] || RULES.contract).map((t) => el("p", { text: t })),
    el("p", { class: "muted", text: "Click a card to choose it and see its moves; click it again to discard it. Keys: " + keys.map(([k, v]) => `${k} ${v}`).join(", ") + "; arrows pick a card, Enter discards it, Esc puts it back." }),
  ], [{ label: "Close", primary: true, action: closeOverlay }]);
}

init();
