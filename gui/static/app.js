// The page: draws the board and panels from the server's game state, sends moves and
// requests.  It keeps no rules: legal moves, results and notation all come from the server.
"use strict";

const FILES = "abcdefgh";
const app = {
  id: null, state: null, tokens: {}, ws: null, flipped: false, selected: null,
  receivedAt: 0, drag: null, hints: false, shownOver: null, reconnect: null,
};

const $ = (id) => document.getElementById(id);

// -- talking to the server -------------------------------------------------------------

function tokenList() { return Object.values(app.tokens).filter(Boolean); }

async function api(method, path, body, raw) {
  const headers = { "X-Seat-Tokens": tokenList().join(",") };
  let data = body;
  if (body !== undefined && !raw) { headers["Content-Type"] = "application/json"; data = JSON.stringify(body); }
  const response = await fetch(path, { method, headers, body: data });
  let answer = {};
  try { answer = await response.json(); } catch (e) { answer = { error: `server answered ${response.status}` }; }
  if (!response.ok) throw new Error(answer.error || `server answered ${response.status}`);
  return answer;
}

function storeTokens() {
  try { localStorage.setItem(`antichess-gui:${app.id}`, JSON.stringify(app.tokens)); } catch (e) { /* private mode */ }
}

function storedTokens(id) {
  try { return JSON.parse(localStorage.getItem(`antichess-gui:${id}`) || "null"); } catch (e) { return null; }
}

function connect() {
  if (app.ws) { app.ws.onclose = null; app.ws.close(); }
  clearTimeout(app.reconnect);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const tokens = encodeURIComponent(tokenList().join(","));
  const ws = new WebSocket(`${scheme}://${location.host}/api/games/${app.id}/ws?tokens=${tokens}`);
  app.ws = ws;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") show(message.state);
    else if (message.type === "error") notice(message.message);
  };
  ws.onclose = () => {  // the server went away or the network dropped: try again
    if (app.ws === ws) app.reconnect = setTimeout(connect, 1000);
  };
}

function leave() {
  if (app.ws) { app.ws.onclose = null; app.ws.close(); app.ws = null; }
}

async function startGame(settings) {
  leave();
  const answer = await api("POST", "/api/games", settings);
  app.id = answer.id;
  app.tokens = answer.tokens;
  storeTokens();
  history.replaceState(null, "", answer.url);
  app.shownOver = null;
  app.selected = null;
  show(answer.state);
  connect();
}

async function openGame(id, watch) {
  app.id = id;
  app.tokens = storedTokens(id) || {};
  if (!tokenList().length && !watch) {
    try {
      const answer = await api("POST", `/api/games/${id}/join`);
      app.tokens = answer.tokens;
      storeTokens();
    } catch (e) { message("No such game", e.message); return; }
  }
  connect();
}

function sendMove(uci) {
  app.selected = null;
  if (app.ws && app.ws.readyState === WebSocket.OPEN) {
    app.ws.send(JSON.stringify({ type: "move", move: uci }));
  } else {
    api("POST", `/api/games/${app.id}/move`, { move: uci }).then(show, (e) => notice(e.message));
  }
  render();
}

// -- drawing ----------------------------------------------------------------------------

function buildBoard() {
  const board = $("board");
  board.textContent = "";
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const file = app.flipped ? 7 - col : col;
      const rank = app.flipped ? row : 7 - row;
      const name = FILES[file] + (rank + 1);
      const square = document.createElement("div");
      square.className = "square " + ((file + rank) % 2 ? "light" : "dark");
      square.dataset.square = name;
      square.setAttribute("role", "gridcell");
      if (row === 7) square.insertAdjacentHTML("beforeend", `<span class="coord file">${FILES[file]}</span>`);
      if (col === 0) square.insertAdjacentHTML("beforeend", `<span class="coord rank">${rank + 1}</span>`);
      board.appendChild(square);
    }
  }
}

function render() {
  const state = app.state;
  const board = state ? state.board : {};
  const movable = new Set(), targets = new Set();
  if (state && mayMove()) {
    for (const uci of state.legal) {
      movable.add(uci.slice(0, 2));
      if (uci.slice(0, 2) === app.selected) targets.add(uci.slice(2, 4));
    }
  }
  const last = state && state.last_move ? state.last_move : [];
  for (const square of $("board").children) {
    const name = square.dataset.square;
    const letter = board[name];
    if (square.dataset.piece !== letter) {
      square.querySelectorAll("svg").forEach((svg) => svg.remove());
      if (letter) { square.dataset.piece = letter; square.insertAdjacentHTML("beforeend", pieceSvg(letter)); }
      else delete square.dataset.piece;
    }
    if (targets.has(name)) square.dataset.target = ""; else delete square.dataset.target;
    square.classList.toggle("selected", name === app.selected);
    square.classList.toggle("movable", app.hints && movable.has(name));
    square.classList.toggle("last", app.hints && last.includes(name));
  }
}

function formatClock(ms) {
  if (ms === null || ms === undefined) return "Untimed";
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const mm = String(Math.floor(seconds / 60)).padStart(2, "0");
  return `${mm}:${String(seconds % 60).padStart(2, "0")}`;
}

function tickClocks() {
  const state = app.state;
  for (const side of ["white", "black"]) {
    const element = $(`clock-${side}`);
    if (!state) { element.textContent = "Untimed"; continue; }
    let left = state.clocks[side];
    if (left !== null && state.running === side) left -= performance.now() - app.receivedAt;
    element.textContent = formatClock(left);
    element.classList.toggle("running", state.running === side);
    element.classList.toggle("low", left !== null && left < 20000);
  }
}

function show(state) {
  if (!state || (app.state && app.state.id === state.id && state.version < app.state.version)) return;
  app.state = state;
  app.receivedAt = performance.now();
  if (app.selected && !state.legal.some((uci) => uci.startsWith(app.selected))) app.selected = null;
  $("status").textContent = state.status;
  notice(state.notice);
  const you = state.you || [];
  let seat = you.length === 2 ? "You play both sides" : you.length ? `You play ${you[0]}` : "You are watching";
  const free = ["white", "black"].filter((side) => state.seats[side] === "free");
  if (free.length) seat += ` — ${free.join(" and ")} is free: send the link below`;
  $("seat").textContent = seat;
  $("share-row").hidden = false;
  $("share").value = `${location.origin}/game/${state.id}`;
  $("variant-name").textContent = `Rules: ${state.variant}`;
  const list = $("history");
  list.textContent = "";
  state.history.forEach((ply, index) => {
    let row = list.lastChild;
    if (ply.side === "white" || !row || row.dataset.black) { row = document.createElement("li"); list.appendChild(row); }
    if (ply.side === "black") row.dataset.black = "1";
    const item = document.createElement("span");
    item.className = "move" + (ply.pass ? " pass" : "") + (index === state.history.length - 1 ? " latest" : "");
    item.textContent = ply.pass ? "(pass)" : ply.move;
    if (row.childNodes.length) row.appendChild(document.createTextNode(" "));
    row.appendChild(item);
  });
  list.scrollTop = list.scrollHeight;
  $("board").classList.toggle("hidden-by-pause", state.paused);
  $("paused-cover").hidden = !state.paused;
  $("btn-pause").textContent = state.paused ? "Unpause" : "Pause";
  $("btn-pause").disabled = !state.controls || !!state.over;
  $("btn-end").disabled = !state.controls || !!state.over;
  $("btn-load").disabled = !state.controls;
  document.title = `Antichess — ${state.status}`;
  render();
  tickClocks();
  if (state.over && app.shownOver !== state.id) {
    app.shownOver = state.id;
    const winner = state.over.winner;
    const title = state.over.reason === "ended" ? "Game ended" :
      winner ? `${winner[0].toUpperCase() + winner.slice(1)} Player has won` : "Draw";
    message(title, state.over.text);
  }
  if (!state.over && app.shownOver === state.id) app.shownOver = null;
}

function notice(text) { $("notice").textContent = text || ""; }

function message(title, text) {
  $("message-title").textContent = title;
  $("message-text").textContent = text;
  $("message-dialog").hidden = false;
  $("message-ok").focus();
}

// -- moving: click-click and drag-and-drop --------------------------------------------

function mayMove() {
  const state = app.state;
  return state && !state.over && !state.paused && (state.you || []).includes(state.turn)
    && state.players[state.turn] === "human";
}

function movesBetween(from, to) {
  return app.state.legal.filter((uci) => uci.slice(0, 2) === from && uci.slice(2, 4) === to);
}

function tryMove(from, to) {
  const moves = movesBetween(from, to);
  if (!moves.length) return false;
  if (moves.length === 1) { sendMove(moves[0]); return true; }
  const box = $("promotion-choices");  // the rule set offers a choice of promotion
  box.textContent = "";
  const white = app.state.turn === "white";
  for (const uci of moves) {
    const letter = uci.slice(4) || "q";
    const button = document.createElement("button");
    button.dataset.promotion = letter;
    button.innerHTML = pieceSvg(white ? letter.toUpperCase() : letter);
    button.onclick = () => { $("promotion-dialog").hidden = true; sendMove(uci); };
    box.appendChild(button);
  }
  $("promotion-dialog").hidden = false;
  return true;
}

function squareAt(x, y) {
  const element = document.elementFromPoint(x, y);
  return element ? element.closest(".square") : null;
}

function onPointerDown(event) {
  const square = event.target.closest(".square");
  if (!square || !app.state || event.button > 0) return;
  const name = square.dataset.square;
  if (app.selected && app.selected !== name && tryMove(app.selected, name)) return;
  const own = mayMove() && app.state.legal.some((uci) => uci.startsWith(name));
  if (!own) { app.selected = null; render(); return; }
  app.selected = name;
  render();
  app.drag = { from: name, x: event.clientX, y: event.clientY, moved: false };
  event.preventDefault();
}

function onPointerMove(event) {
  const drag = app.drag;
  if (!drag) return;
  if (!drag.moved && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 4) return;
  const ghost = $("drag-ghost");
  if (!drag.moved) {
    drag.moved = true;
    ghost.innerHTML = pieceSvg(app.state.board[drag.from]);
    ghost.hidden = false;
    document.querySelector(`[data-square="${drag.from}"]`).classList.add("dragging");
  }
  ghost.style.left = `${event.clientX}px`;
  ghost.style.top = `${event.clientY}px`;
}

function onPointerUp(event) {
  const drag = app.drag;
  if (!drag) return;
  app.drag = null;
  $("drag-ghost").hidden = true;
  document.querySelectorAll(".dragging").forEach((element) => element.classList.remove("dragging"));
  if (!drag.moved) return;  // a click: the piece stays selected
  const square = squareAt(event.clientX, event.clientY);
  if (square && square.dataset.square !== drag.from) tryMove(drag.from, square.dataset.square);
}

// -- menus, dialogs and keys ----------------------------------------------------------

async function loadVariants() {
  const levels = [1, 2, 3, 4, 5].map((n) => `<option value="${n}"${n === 2 ? " selected" : ""}>${n}</option>`).join("");
  document.querySelectorAll("select[name$=_level]").forEach((select) => { select.innerHTML = levels; });
  try {
    const answer = await api("GET", "/api/variants");
    $("variant-select").innerHTML = answer.variants.map((v) =>
      `<option value="${v.name}" title="${v.summary.replace(/"/g, "&quot;")}"${v.name === "mit-antichess" ? " selected" : ""}>${v.name}</option>`).join("");
  } catch (e) { /* the dialog still offers the course rules */ }
}

function openNewGame() {
  $("new-game-dialog").hidden = false;
  $("new-ok").focus();
}

function newGameSettings(form) {
  const data = new FormData(form);
  const settings = { variant: data.get("variant") || "mit-antichess", antikings: data.get("antikings") === "on" };
  for (const side of ["white", "black"]) {
    settings[side] = data.get(side);
    settings[`${side}_level`] = Number(data.get(`${side}_level`));
    settings[`${side}_minutes`] = data.get(`${side}_timed`) === "on" ? Number(data.get(`${side}_minutes`)) : 0;
  }
  if (data.get("network") === "on") {
    const humans = ["white", "black"].filter((side) => settings[side] === "human");
    settings.mine = humans.slice(0, 1);
  }
  return settings;
}

function save() {
  if (!app.id) return;
  const link = document.createElement("a");
  link.href = `/api/games/${app.id}/game.xml`;
  link.download = `antichess-${app.id}.xml`;
  document.body.appendChild(link);
  link.click();
  link.remove();
}

async function loadFile(file) {
  if (!file || !app.id) return;
  if (file.size > 2 * 1024 * 1024) { message("Load failed", "Not a valid antichess game file: the file is too large"); return; }
  try {
    show(await api("POST", `/api/games/${app.id}/load`, await file.arrayBuffer(), true));
  } catch (e) { message("Load failed", e.message); }
}

function onKey(event) {
  const typing = event.target.matches && event.target.matches("input, select, textarea");
  if (event.key === "F2") { event.preventDefault(); openNewGame(); }
  else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") { event.preventDefault(); save(); }
  else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "o") { event.preventDefault(); if (!$("btn-load").disabled) $("load-file").click(); }
  else if (event.key === " " && !typing && event.type === "keydown") { event.preventDefault(); app.hints = true; render(); }
  else if (event.key === "Escape") { app.selected = null; $("promotion-dialog").hidden = true; render(); }
}

function onKeyUp(event) {
  if (event.key === " " && app.hints && !$("btn-hints").classList.contains("on")) { app.hints = false; render(); }
}

function wire() {
  $("board").addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("keydown", onKey);
  window.addEventListener("keyup", onKeyUp);
  $("btn-new").onclick = openNewGame;
  $("btn-save").onclick = save;
  $("btn-pgn").onclick = () => { if (app.id) location.href = `/api/games/${app.id}/game.pgn`; };
  $("btn-load").onclick = () => $("load-file").click();
  $("load-file").onchange = (event) => { loadFile(event.target.files[0]); event.target.value = ""; };
  $("btn-flip").onclick = () => { app.flipped = !app.flipped; buildBoard(); render(); };
  $("btn-hints").onclick = () => { const on = $("btn-hints").classList.toggle("on"); app.hints = on; render(); };
  $("btn-pause").onclick = () => app.state && api("POST", `/api/games/${app.id}/pause`, { paused: !app.state.paused }).then(show, (e) => notice(e.message));
  $("btn-end").onclick = () => app.id && api("POST", `/api/games/${app.id}/end`, {}).then(show, (e) => notice(e.message));
  $("message-ok").onclick = () => { $("message-dialog").hidden = true; };
  $("new-cancel").onclick = () => { $("new-game-dialog").hidden = true; };
  $("new-game-form").onsubmit = (event) => {
    event.preventDefault();
    $("new-game-dialog").hidden = true;
    startGame(newGameSettings(event.target)).catch((e) => message("New game failed", e.message));
  };
  setInterval(tickClocks, 200);
}

async function main() {
  buildBoard();
  wire();
  await loadVariants();
  const params = new URLSearchParams(location.search);
  const match = location.pathname.match(/^\/game\/([A-Za-z0-9_-]+)$/);
  if (match) { await openGame(match[1], params.has("watch")); return; }
  if (params.has("variant") || params.has("white") || params.has("black")) {
    const settings = { variant: params.get("variant") || "mit-antichess",
      white: params.get("white") || "human", black: params.get("black") || "computer",
      level: Number(params.get("level") || 2), minutes: Number(params.get("minutes") || 0) };
    if (params.get("antikings")) settings.antikings = true;
    try { await startGame(settings); } catch (e) { message("New game failed", e.message); }
    return;
  }
  render();
  openNewGame();
}

main();
