// A tiny renderer for components without hooks, with no DOM: it calls function components and
// walks the elements, so a test reads what a person perceives (the words shown, the words a
// screen reader says, the buttons and their names) rather than the markup.

import type { ComponentChildren, VNode } from "preact";

export interface Element {
  tag: string;
  props: Record<string, unknown>;
  children: Node[];
}
type Node = Element | string;

/** Expand function components into plain elements and text. */
export function render(node: ComponentChildren): Node[] {
  if (node === null || node === undefined || typeof node === "boolean") return [];
  if (typeof node === "string" || typeof node === "number" || typeof node === "bigint") return [String(node)];
  if (Array.isArray(node)) return node.flatMap((child) => render(child as ComponentChildren));
  const vnode = node as VNode<Record<string, unknown>>;
  if (typeof vnode.type === "function") {
    const component = vnode.type as (props: unknown) => ComponentChildren;
    return render(component(vnode.props));
  }
  const { children, ...props } = vnode.props as Record<string, unknown> & { children?: ComponentChildren };
  return [{ tag: String(vnode.type), props, children: render(children) }];
}

/** The words of the nodes; each element's apart from its neighbours' (spans laid out side by
 * side read as separate words, as on the page). */
function words(nodes: Node[], skip: (e: Element) => boolean): string {
  return nodes
    .map((n) => (typeof n === "string" ? n : skip(n) ? "" : ` ${words(n.children, skip)} `))
    .join("");
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** The words on the screen (visually hidden text left out). */
export function shown(node: ComponentChildren): string {
  return squash(words(render(node), (e) => String(e.props.class ?? "").split(" ").includes("visually-hidden")));
}

/** The words a screen reader reads (aria-hidden parts left out, visually hidden text in). */
export function spoken(node: ComponentChildren): string {
  return squash(words(render(node), (e) => e.props["aria-hidden"] === "true" || e.props["aria-hidden"] === true));
}

export function findAll(node: ComponentChildren, match: (e: Element) => boolean): Element[] {
  const found: Element[] = [];
  const visit = (nodes: Node[]) => {
    for (const n of nodes) {
      if (typeof n === "string") continue;
      if (match(n)) found.push(n);
      visit(n.children);
    }
  };
  visit(render(node));
  return found;
}

/** A button's accessible name: its aria-label, else its words. */
export function nameOf(e: Element): string {
  if (typeof e.props["aria-label"] === "string") return e.props["aria-label"];
  return squash(words(e.children, (c) => c.props["aria-hidden"] === "true" || c.props["aria-hidden"] === true));
}

export function buttons(node: ComponentChildren): Element[] {
  return findAll(node, (e) => e.tag === "button");
}

export function byTestId(node: ComponentChildren, id: string): Element[] {
  return findAll(node, (e) => e.props["data-testid"] === id);
}
