//! How a generated tool set finds a tool by name: a `match` on the name,
//! or the perfect hash computed here.

use super::*;

/// Up to this many tools, a tool set dispatches with a plain `match` on the
/// name (what a hand-written function does; the compiler switches on the
/// length, then compares bytes); above it, through the perfect hash.
pub(super) const MATCH_MAX: usize = 8;

/// How a generated tool set finds a tool by name.
pub(super) struct Dispatch {
    /// Whether names go through the perfect hash (else a `match` on the name).
    pub(super) hashed: bool,
    /// The declared position of the tool in each slot.
    pub(super) order: Vec<usize>,
    /// The perfect hash's tables and `index` function (empty for a `match`).
    pub(super) index_fn: TokenStream,
}

impl Dispatch {
    pub(super) fn new(krate: &syn::Path, ph: &PerfectHash, n: usize) -> Self {
        if n <= MATCH_MAX {
            return Self {
                hashed: false,
                order: (0..n).collect(),
                index_fn: TokenStream::new(),
            };
        }
        let key = Literal::u64_suffixed(ph.key);
        let pilots = ph.pilots.iter().map(|p| Literal::u64_suffixed(*p));
        let buckets = Literal::usize_unsuffixed(ph.pilots.len());
        let n_lit = Literal::usize_unsuffixed(n);
        let index_fn = quote! {
            const KEY: u64 = #key;
            const PILOTS: [u64; #buckets] = [#(#pilots),*];

            /// The one slot the tool named `name` can be in (any name lands
            /// on some slot: the caller compares it with that slot's name).
            #[inline]
            fn index(name: &str) -> usize {
                #krate::__private::dispatch::index(Self::KEY, &Self::PILOTS, #n_lit, name.as_bytes())
            }
        };
        Self {
            hashed: true,
            order: ph.map.clone(),
            index_fn,
        }
    }

    /// A body that finds the tool named `name` and gives `value(its
    /// declared position)`, or `None` for another name.
    pub(super) fn by_name(
        &self,
        tools: &[Lowered],
        value: impl Fn(usize) -> TokenStream,
    ) -> TokenStream {
        let arms = self.order.iter().enumerate().map(|(slot, &i)| {
            let pattern = self.pattern(slot, &tools[i].name, quote!(name));
            let value = value(i);
            quote!(#pattern => #value,)
        });
        let scrutinee = if self.hashed {
            quote!(Self::index(name))
        } else {
            quote!(name)
        };
        quote!({
            match #scrutinee {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        })
    }

    /// What a `match` on the name looks at.
    pub(super) fn scrutinee(&self, name: TokenStream) -> TokenStream {
        if self.hashed {
            quote!(Self::index(&#name))
        } else {
            quote!(&*#name)
        }
    }

    /// The pattern of the arm for the tool `tool` in `slot`: the name itself,
    /// or the slot guarded by a comparison with the name (one comparison
    /// with a literal, which the compiler inlines).
    pub(super) fn pattern(&self, slot: usize, tool: &str, name: TokenStream) -> TokenStream {
        if self.hashed {
            let slot = Literal::usize_unsuffixed(slot);
            quote!(#slot if #name == #tool)
        } else {
            quote!(#tool)
        }
    }
}
