/**
 * Keyboard behaviour of the view's trees (WAI-ARIA tree pattern): one tab
 * stop per tree (roving tabindex); Up/Down/Home/End move between visible
 * items; Right expands or enters, Left collapses or goes to the parent;
 * Enter and Space activate the item; Delete stops it (an agent at work);
 * the context-menu key or Shift+F10 opens its menu (the browser sends the
 * menu event, the webview host shows VS Code's menu). A focused item's
 * buttons join the tab order, so every action is reachable without a mouse.
 */

type Toggle = (item: HTMLElement, expanded: boolean) => void;

function visibleItems(tree: Element): HTMLElement[] {
  return [...tree.querySelectorAll<HTMLElement>('li[role="treeitem"]')].filter((item) => item.offsetParent !== null);
}

function itemOf(target: EventTarget | null): HTMLElement | null {
  return target instanceof Element ? target.closest<HTMLElement>('li[role="treeitem"]') : null;
}

/** The buttons of an item's own row, not of the items nested in it (approval answers are always in the tab order). */
function rowButtons(item: HTMLElement): HTMLButtonElement[] {
  return [...item.querySelectorAll<HTMLButtonElement>(':scope > .row button')].filter((b) => !b.closest('.approval'));
}

export function focusItem(tree: Element, item: HTMLElement): void {
  for (const other of tree.querySelectorAll<HTMLElement>('li[role="treeitem"][tabindex="0"]')) if (other !== item) other.tabIndex = -1;
  item.tabIndex = 0;
  item.focus();
}

export function setExpanded(item: HTMLElement, expanded: boolean, onToggle: Toggle): void {
  if (!item.hasAttribute('aria-expanded')) return;
  item.setAttribute('aria-expanded', String(expanded));
  onToggle(item, expanded);
}

export function installTreeKeyboard(root: HTMLElement, onToggle: Toggle): void {
  root.addEventListener('keydown', (e) => {
    const item = itemOf(e.target);
    const tree = item?.closest('[role="tree"]');
    if (!item || !tree || e.target !== item) return;
    const items = visibleItems(tree);
    const index = items.indexOf(item);
    const move = (to: HTMLElement | undefined) => to && focusItem(tree, to);
    const expanded = item.getAttribute('aria-expanded');
    switch (e.key) {
      case 'ArrowDown':
        move(items[index + 1]);
        break;
      case 'ArrowUp':
        move(items[index - 1]);
        break;
      case 'Home':
        move(items[0]);
        break;
      case 'End':
        move(items.at(-1));
        break;
      case 'ArrowRight':
        if (expanded === 'false') setExpanded(item, true, onToggle);
        else if (expanded === 'true') move(items[index + 1]);
        break;
      case 'ArrowLeft':
        if (expanded === 'true') setExpanded(item, false, onToggle);
        else move(itemOf(item.parentElement) ?? undefined);
        break;
      case 'Enter':
      case ' ':
        item.dispatchEvent(new CustomEvent('activate', { bubbles: true }));
        break;
      case 'Delete':
        item.dispatchEvent(new CustomEvent('stop', { bubbles: true }));
        break;
      default:
        return;
    }
    e.preventDefault();
  });
  root.addEventListener('focusin', (e) => {
    const item = itemOf(e.target);
    if (!item) return;
    const tree = item.closest('[role="tree"]');
    if (tree && e.target === item) for (const other of tree.querySelectorAll<HTMLElement>('li[role="treeitem"][tabindex="0"]')) if (other !== item) other.tabIndex = -1;
    item.tabIndex = 0;
    item.classList.add('has-focus');
    for (const button of rowButtons(item)) button.tabIndex = 0;
  });
  root.addEventListener('focusout', (e) => {
    const item = itemOf(e.target);
    const next = itemOf(e.relatedTarget);
    if (!item || next === item) return;
    item.classList.remove('has-focus');
    for (const button of rowButtons(item)) button.tabIndex = -1;
  });
  // A click on a row focuses its item, so the keyboard continues from there.
  root.addEventListener('click', (e) => {
    const item = itemOf(e.target);
    const tree = item?.closest('[role="tree"]');
    if (item && tree && !(e.target instanceof HTMLButtonElement)) focusItem(tree, item);
  });
}
