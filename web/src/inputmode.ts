// Whether the player is driving the page with the keyboard. Moving focus for them (to the first
// playable card when their turn comes) helps; doing it to a touch player would just put a focus
// ring on a card they did not pick.

let keyboard = false;

if (typeof window !== "undefined") {
  window.addEventListener("keydown", (e) => {
    if (e.key === "Tab" || e.key.startsWith("Arrow") || e.key === "Enter" || e.key === " ") keyboard = true;
  }, true);
  window.addEventListener("pointerdown", () => (keyboard = false), true);
}

export function usingKeyboard(): boolean {
  return keyboard;
}
