// The project's own piece drawings: plain SVG shapes on a 100 x 100 grid, one function a
// piece.  White pieces are ivory, black pieces deep red (as the course's application drew
// them); an anti-king is a king turned upside down inside a ring, so it is never taken for
// a king.
"use strict";

const PIECE_SHAPES = {
  p: `<circle cx="50" cy="30" r="12"/>
      <path d="M38 44 Q50 38 62 44 L68 76 L32 76 Z"/>
      <rect x="24" y="76" width="52" height="10" rx="3"/>`,
  r: `<path d="M28 20 h10 v8 h7 v-8 h10 v8 h7 v-8 h10 v18 l-6 6 v26 l6 6 v0 H28 v0 l6 -6 v-26 l-6 -6 Z"/>
      <rect x="22" y="76" width="56" height="10" rx="3"/>
      <line x1="36" y1="44" x2="64" y2="44" class="detail"/>`,
  n: `<path d="M30 86 L30 70 Q32 56 44 48 L30 52 Q22 50 24 42 L44 22 L46 12 L54 20
               Q76 26 74 52 L72 86 Z"/>
      <circle cx="48" cy="32" r="3" class="eye"/>
      <rect x="24" y="78" width="54" height="9" rx="3"/>`,
  b: `<path d="M50 14 Q66 30 62 48 Q60 58 50 60 Q40 58 38 48 Q34 30 50 14 Z"/>
      <line x1="50" y1="30" x2="58" y2="22" class="detail"/>
      <circle cx="50" cy="11" r="5"/>
      <path d="M40 62 h20 l6 14 H34 Z"/>
      <rect x="24" y="76" width="52" height="10" rx="3"/>`,
  q: `<path d="M24 34 L34 62 L40 28 L50 58 L60 28 L66 62 L76 34 L70 74 H30 Z"/>
      <circle cx="24" cy="30" r="5"/><circle cx="40" cy="24" r="5"/><circle cx="60" cy="24" r="5"/>
      <circle cx="76" cy="30" r="5"/>
      <rect x="24" y="76" width="52" height="10" rx="3"/>`,
  k: `<path d="M46 8 h8 v8 h8 v8 h-8 v8 h-8 v-8 h-8 v-8 h8 Z"/>
      <path d="M50 34 Q26 26 24 46 Q24 60 34 72 H66 Q76 60 76 46 Q74 26 50 34 Z"/>
      <line x1="34" y1="56" x2="66" y2="56" class="detail"/>
      <rect x="24" y="76" width="52" height="10" rx="3"/>`,
};

// The anti-king: a ring with a king's crown upside down in it.
PIECE_SHAPES.a = `<circle cx="50" cy="50" r="40" class="ring"/>
      <g transform="rotate(180 50 50) translate(20 18) scale(0.6)">${PIECE_SHAPES.k}</g>`;

function pieceSvg(letter) {
  const white = letter === letter.toUpperCase();
  const shape = PIECE_SHAPES[letter.toLowerCase()];
  const colour = white ? "white" : "black";
  return `<svg class="piece ${colour}" viewBox="0 0 100 100" aria-label="${letter}">` +
    `<g class="body">${shape}</g></svg>`;
}
