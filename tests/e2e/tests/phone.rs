//! Phones and tablets (Chromium's mobile emulation, a touch screen): at 390 and 768 CSS pixels
//! wide no view scrolls sideways (tables that may scroll do so inside their own box), and every
//! control is a touch target of at least 40 x 40 px.

use e2e::{run, Browser, VIEWS};
use std::time::Duration;

/// The page's scroll width, its width, and the elements that stick out of it (outside the boxes
/// meant to scroll sideways).
const OVERFLOW: &str = "
  const w = document.documentElement.clientWidth;
  const wide = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > w + 0.5 || r.left < -0.5) && !e.closest('.table-scroll')) {
      wide.push(e.tagName.toLowerCase() + '.' + String(e.className).split(' ').join('.')
        + (e.dataset.testid ? '[' + e.dataset.testid + ']' : '') + ' ' + Math.round(r.left)
        + '..' + Math.round(r.right));
    }
  }
  return [document.documentElement.scrollWidth, w, wide.slice(0, 20)];";

/// Controls smaller than 40 x 40 px (a checkbox counts with its label; visually hidden file
/// inputs are reached through their label).
const SMALL_TARGETS: &str = "
  const small = [];
  for (const e of document.querySelectorAll('button, select, input, summary, a[href], label.button')) {
    const t = (e.type === 'checkbox' || e.type === 'radio') ? (e.closest('label') || e) : e;
    const r = t.getBoundingClientRect();
    if (r.width <= 1 || getComputedStyle(e).visibility === 'hidden') continue;
    if (r.height < 39.5 || r.width < 39.5) {
      small.push((e.dataset.testid || e.getAttribute('aria-label') || e.textContent || e.tagName)
        .trim().slice(0, 30) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
  }
  return small;";

#[test]
fn phones_and_tablets_scroll_only_downwards_and_every_control_takes_a_finger() {
    run(Duration::from_secs(150), async {
        for width in [390u32, 768] {
            let b = Browser::start_mobile(width, 844).await;
            b.open("").await;
            for view in VIEWS {
                b.open_view(view).await;
                let r = b.js(OVERFLOW).await;
                assert!(
                    r[0].as_u64() <= r[1].as_u64() && r[2].as_array().unwrap().is_empty(),
                    "{width} px, {view}: page {} px wide for {} px: {}",
                    r[0],
                    r[1],
                    r[2]
                );
                let small = b.js(SMALL_TARGETS).await;
                assert!(
                    small.as_array().unwrap().is_empty(),
                    "{width} px, {view}: small touch targets {small}"
                );
                if width == 390 && matches!(view, "design" | "routing" | "codesign") {
                    b.screenshot(&format!("phone-{view}")).await;
                }
            }
            // The dimension table reads as cards, each field with its label.
            if width == 390 {
                b.click("view-design").await;
                let label = b
                    .js(
                        "const td = document.querySelector('[data-testid=dims] td[data-label]');
                         return getComputedStyle(td, '::before').content;",
                    )
                    .await;
                assert_eq!(label, "\"topology\"");
                b.js("document.querySelector('[data-testid=dims]').scrollIntoView(); return true;")
                    .await;
                b.screenshot("phone-dims").await;
            }
            b.assert_no_errors().await;
            b.close().await;
        }
    });
}
