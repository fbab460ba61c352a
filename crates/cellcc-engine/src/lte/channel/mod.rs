//! Radio channel: path loss, shadowing, fast fading, antennas and layout, mobility
//! (issue 8). Implements [`super::sinr::SinrSource`].
