// The cards, drawn as SVG from code (no image files): the rank in the top corner, the pips of
// the Italian suits (denari a gold coin, coppe a cup, spade a sword, bastoni a club) for 1-7,
// and for the figures a framed picture (fante a page, cavallo a horseshoe, re a crown).

import { cardName, FIGURES, parseCard, type Suit } from "./deck";

const INK: Record<Suit, string> = {
  D: "#9a6a00",
  C: "#b3261e",
  S: "#1f4e8c",
  B: "#2f6b2a",
};

const TINT: Record<Suit, string> = {
  D: "#fbefc9",
  C: "#fbe0dc",
  S: "#dde8f6",
  B: "#e0efd9",
};

// The faces are SVG markup built once per card and set as the HTML of their holder: a table
// shows a few dozen cards, and a phone draws a card from a cached string far faster than from
// the forty elements of a rendered component.

/** A suit emblem centred on (x, y), about `s` units tall. */
export function emblem(suit: Suit, x: number, y: number, s: number): string {
  const t = `translate(${x} ${y}) scale(${+(s / 20).toFixed(4)})`; // the shapes are drawn in a 20-unit box
  switch (suit) {
    case "D": // a gold coin with a rosette
      return `<g transform="${t}"><circle r="9.5" fill="#e9b530" stroke="#8a5a00" stroke-width="1.2"/>` +
        `<circle r="6.6" fill="none" stroke="#8a5a00" stroke-width="0.9"/>` +
        `<path d="M0-4.2 1.2-1.2 4.2 0 1.2 1.2 0 4.2-1.2 1.2-4.2 0-1.2-1.2Z" fill="#b33a1c"/></g>`;
    case "C": // a chalice: bowl, stem and foot
      return `<g transform="${t}"><path d="M-7.5-9h15c0 6-3 9.5-6 10.5v4.5c2 .5 4.5 1.5 4.5 3.5h-12c0-2 2.5-3 4.5-3.5V1.5C-4.5.5-7.5-3-7.5-9Z" ` +
        `fill="#c8372d" stroke="#6e1410" stroke-width="1" stroke-linejoin="round"/>` +
        `<path d="M-7.5-9h15" stroke="#e9b530" stroke-width="2"/></g>`;
    case "S": // a sword, point up
      return `<g transform="${t}"><path d="M0-10 2 -7V5h-4V-7Z" fill="#cfd8e3" stroke="#1f3b5c" stroke-width="0.9"/>` +
        `<path d="M-6 5h12v2h-12Z" fill="#e9b530" stroke="#6b4a00" stroke-width="0.7"/>` +
        `<path d="M-1.2 7h2.4v3h-2.4Z" fill="#6b3d1f"/>` +
        `<circle cy="10.5" r="1.5" fill="#e9b530" stroke="#6b4a00" stroke-width="0.5"/></g>`;
    case "B": // a knotted club, wider at the head
      return `<g transform="${t}"><path d="M-1.7 10-3.9-5.5C-4.4-10.8 4.4-10.8 3.9-5.5L1.7 10C1.3 11.2-1.3 11.2-1.7 10Z" ` +
        `fill="#4f8a3c" stroke="#22461a" stroke-width="1"/>` +
        `<circle cx="-1.6" cy="-4.5" r="1.2" fill="#7a4a20"/><circle cx="1.5" cy="0.5" r="1.1" fill="#7a4a20"/>` +
        `<circle cx="-0.9" cy="5.2" r="1" fill="#7a4a20"/></g>`;
  }
}

// Pip positions for ranks 1..7 in a unit box (x, y in 0..1), and the pip size.
const PIPS: Record<number, { at: [number, number][]; size: number }> = {
  1: { at: [[0.5, 0.5]], size: 26 },
  2: { at: [[0.5, 0.18], [0.5, 0.82]], size: 16 },
  3: { at: [[0.5, 0.12], [0.5, 0.5], [0.5, 0.88]], size: 15 },
  4: { at: [[0.22, 0.15], [0.78, 0.15], [0.22, 0.85], [0.78, 0.85]], size: 13 },
  5: { at: [[0.22, 0.12], [0.78, 0.12], [0.5, 0.5], [0.22, 0.88], [0.78, 0.88]], size: 13 },
  6: { at: [[0.22, 0.1], [0.78, 0.1], [0.22, 0.5], [0.78, 0.5], [0.22, 0.9], [0.78, 0.9]], size: 12 },
  7: {
    at: [[0.22, 0.08], [0.78, 0.08], [0.5, 0.29], [0.22, 0.5], [0.78, 0.5], [0.22, 0.92], [0.78, 0.92]],
    size: 11.5,
  },
};

// The pip area inside the 60 x 90 card, clear of the corner indices.
const AREA = { x: 15, y: 15, w: 30, h: 60 };

function figureIcon(rank: number, ink: string): string {
  if (rank === 10) {
    // re: a crown
    return `<path d="M20 34 22 22 26 29 30 19 34 29 38 22 40 34Z" fill="#e9b530" stroke="#6b4a00" stroke-width="1" stroke-linejoin="round"/>`;
  }
  if (rank === 9) {
    // cavallo: a horseshoe
    return `<path d="M23 34V27a7 7 0 0 1 14 0v7h-3.4v-7a3.6 3.6 0 0 0-7.2 0v7Z" fill="#8d949c" stroke="#3b4046" stroke-width="1"/>`;
  }
  // fante: a page's bust with a feathered cap
  return `<g><path d="M22 35c0-5 3.6-7 8-7s8 2 8 7Z" fill="${ink}"/>` +
    `<circle cx="30" cy="24" r="4" fill="#f1d3b0" stroke="#7a5a3c" stroke-width="0.7"/>` +
    `<path d="M25.5 22c1-3.6 8-3.6 9 0Z" fill="${ink}"/>` +
    `<path d="M34 20.5c2-2.5 4-3 5-2.5-1.5.5-3 1.5-4 3Z" fill="#e9b530"/></g>`;
}

const OPEN = `<svg viewBox="0 0 60 90" class="card-svg" aria-hidden="true" focusable="false">` +
  `<rect x="0.75" y="0.75" width="58.5" height="88.5" rx="5" fill="#fffdf6" stroke="#b9b2a0" stroke-width="1.5"/>`;

const faces = new Map<string, string>();

/** The SVG markup of a card's face (cached). */
export function faceMarkup(code: string): string {
  const cached = faces.get(code);
  if (cached) return cached;
  const { rank, suit } = parseCard(code);
  const ink = INK[suit];
  // The rank is written once, in the top corner: the card's only text, so what a sighted player
  // reads is part of the button's name ("8 of spade"); the other corner shows the suit.
  let svg = OPEN +
    `<text x="8" y="12.5" font-size="${rank === 10 ? 9.5 : 11}" font-weight="700" fill="${ink}" text-anchor="middle">${rank}</text>` +
    emblem(suit, 8, 19.5, 7) + emblem(suit, 52, 80, 7);
  if (FIGURES[rank]) {
    // The figure's picture (a page's bust, a horseshoe, a crown) over the suit.
    svg += `<rect x="14" y="14" width="32" height="62" rx="3" fill="${TINT[suit]}" stroke="${ink}" stroke-width="1"/>` +
      `<g transform="translate(30 29) scale(1.3) translate(-30 -27)">${figureIcon(rank, ink)}</g>` +
      `<rect x="14" y="46" width="32" height="30" fill="${ink}" opacity="0.16"/>` +
      emblem(suit, 30, 61, 19);
  } else {
    const { at, size } = PIPS[rank];
    svg += at.map(([px, py]) => emblem(suit, AREA.x + px * AREA.w, AREA.y + py * AREA.h, size)).join("");
  }
  svg += "</svg>";
  faces.set(code, svg);
  return svg;
}

const BACK = `<svg viewBox="0 0 60 90" class="card-svg" aria-hidden="true" focusable="false"><defs>` +
  `<pattern id="tavolo-back" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
  `<rect width="6" height="6" fill="#8e2a2a"/><rect width="3" height="6" fill="#a53a35"/></pattern></defs>` +
  `<rect x="0.75" y="0.75" width="58.5" height="88.5" rx="5" fill="#fffdf6" stroke="#b9b2a0" stroke-width="1.5"/>` +
  `<rect x="5" y="5" width="50" height="80" rx="3" fill="url(#tavolo-back)"/>` +
  `<circle cx="30" cy="45" r="9" fill="#fffdf6" opacity="0.9"/>` +
  `<text x="30" y="49" font-size="11" font-weight="700" fill="#8e2a2a" text-anchor="middle">t</text></svg>`;

/** A card's face, hidden from screen readers (its holder carries the name). */
export function CardFace({ code }: { code: string }) {
  return <span class="card-face" aria-hidden="true" dangerouslySetInnerHTML={{ __html: faceMarkup(code) }} />;
}

/** A card face up for reading (not a button), as the replay and the analysis show them: its name
 * is what a screen reader says; ``mark`` lights the card just played or the cards it took. */
export function ShownCard({ code, mark }: { code: string; mark?: "played" | "taken" }) {
  return (
    <span class={`replay-card${mark ? ` is-${mark}` : ""}`} role="img" aria-label={cardName(code)}>
      <CardFace code={code} />
    </span>
  );
}

export function CardBack() {
  return <span class="card-face" aria-hidden="true" dangerouslySetInnerHTML={{ __html: BACK }} />;
}

export interface CardButtonProps {
  code: string;
  enabled: boolean;
  onPick?: (code: string) => void;
  highlighted?: boolean;
  selected?: boolean;
  /** A table card while a capture is being chosen: picked (true) or not yet (false). */
  pressed?: boolean;
  /** More classes: how the table shows the last card played or the last cards of a hand. */
  extraClass?: string;
}

/**
 * Every card is a focusable button named like "7 of denari (settebello)". A card that cannot be
 * played is aria-disabled rather than disabled, so keyboard users can still reach and read it.
 */
export function CardButton({ code, enabled, onPick, highlighted, selected, pressed, extraClass }: CardButtonProps) {
  const classes = ["card", enabled ? "is-enabled" : "is-disabled"];
  if (extraClass) classes.push(extraClass);
  if (highlighted) classes.push("is-highlighted");
  if (selected) classes.push("is-selected");
  return (
    <button
      type="button"
      class={classes.join(" ")}
      aria-label={cardName(code)}
      aria-disabled={enabled ? undefined : "true"}
      aria-pressed={pressed === undefined ? undefined : pressed ? "true" : "false"}
      data-card={code}
      onClick={() => {
        if (enabled && onPick) onPick(code);
      }}
    >
      <CardFace code={code} />
    </button>
  );
}
