//! Messages across the top of the page: a link that could not be read (the link stays visible), a
//! shared scenario on view (with a way back to one's own), or an action that failed.

use super::studio::{Banner, Studio};
use leptos::prelude::*;

/// The banner, if any.
#[component]
pub fn Banners(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let dismiss = move |_| studio.banner.set(None);
    // Another tab saved a part this tab shows differently: both are offered, nothing is lost.
    let elsewhere = move || {
        studio
            .elsewhere
            .get()
            .into_iter()
            .map(|part| {
                view! {
                    <div class="banner info" role="alert" data-testid="elsewhere-banner" data-part=part.key()>
                        <p>
                            <strong>{format!("Another tab saved a newer version of {}. ", part.label())}</strong>
                            "This tab's is not saved meanwhile: take theirs, or keep yours (saved over theirs)."
                        </p>
                        <button type="button" data-testid="take-theirs" on:click=move |_| studio.take_theirs(part)>
                            "Take theirs"
                        </button>
                        <button type="button" data-testid="keep-mine" on:click=move |_| studio.keep_mine(part)>
                            "Keep mine"
                        </button>
                    </div>
                }
            })
            .collect_view()
    };
    let banner = move || {
        studio.banner.get().map(|b| match b {
            Banner::BadLink { message, link } => view! {
                <div class="banner error" role="alert" data-testid="error-banner">
                    <p>
                        <strong>"This link could not be opened: "</strong>
                        {message}
                        " The default scenario is shown instead; your saved scenario is untouched."
                    </p>
                    <label class="bad-link">
                        "The link as received (nothing is lost: copy it from here):"
                        <input type="text" readonly=true data-testid="bad-link" prop:value=link />
                    </label>
                    <button type="button" on:click=dismiss>"Dismiss"</button>
                </div>
            }
            .into_any(),
            Banner::Shared { own } => {
                let back = own.map(|sc| {
                    view! {
                        <button
                            type="button"
                            data-testid="back-to-own"
                            on:click=move |_| studio.load(&sc)
                        >
                            "Back to my own scenario"
                        </button>
                    }
                });
                view! {
                    <div class="banner info" role="status" data-testid="shared-banner">
                        <p>
                            "You are viewing a shared scenario. Your own saved scenario is kept until "
                            "you edit this one."
                        </p>
                        {back}
                        <button type="button" on:click=dismiss>"Dismiss"</button>
                    </div>
                }
                .into_any()
            }
            Banner::Recovered { failed } => {
                let download = move |_| {
                    let (name, content, mime) = crate::session::failed_download(&failed);
                    if let Err(e) = super::browser::download(&content, &name, mime) {
                        studio.banner.set(Some(Banner::Error(format!("The download failed: {e}"))));
                    }
                };
                view! {
                    <div class="banner error" role="alert" data-testid="recovered-banner">
                        <p>
                            <strong>"The last visit did not finish opening its scenario. "</strong>
                            "The default scenario is shown instead; the scenario that failed is kept "
                            "in this browser (download it to keep it elsewhere or to report it)."
                        </p>
                        <button type="button" data-testid="download-failed" on:click=download>
                            "Download the scenario that failed"
                        </button>
                        <button type="button" on:click=dismiss>"Dismiss"</button>
                    </div>
                }
                .into_any()
            }
            Banner::Error(message) => view! {
                <div class="banner error" role="alert" data-testid="error-banner">
                    <p>{message}</p>
                    <button type="button" on:click=dismiss>"Dismiss"</button>
                </div>
            }
            .into_any(),
        })
    };
    view! {
        {elsewhere}
        {banner}
    }
}
