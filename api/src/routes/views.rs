//! Wire forms of the enums several resources share, mirrored from the entity enums so
//! that a database type is never what a client sees.

use parley_entity::enums;
use poem_openapi::Enum;

macro_rules! mirror_enum {
    ($(#[$doc:meta])* $name:ident <=> $entity:path { $($variant:ident),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
        #[oai(rename_all = "snake_case")]
        pub enum $name { $($variant),+ }

        impl From<$entity> for $name {
            fn from(value: $entity) -> Self {
                match value { $(<$entity>::$variant => Self::$variant),+ }
            }
        }

        impl From<$name> for $entity {
            fn from(value: $name) -> Self {
                match value { $($name::$variant => Self::$variant),+ }
            }
        }
    };
}

mirror_enum!(
    /// What a person is across the deployment.
    UserRole <=> enums::UserRole { Student, Teacher, Admin }
);
mirror_enum!(
    /// A session is `active` until it is completed.
    SessionState <=> enums::SessionState { Active, Completed }
);
mirror_enum!(
    /// Who wrote a message.
    MessageRole <=> enums::MessageRole { User, Assistant, System }
);
mirror_enum!(
    /// A member's part in a group.
    MemberRole <=> enums::MemberRole { Member, Manager }
);
mirror_enum!(
    /// A person's part in a class.
    EnrollmentRole <=> enums::EnrollmentRole { Student, Teacher }
);
mirror_enum!(
    /// What a module decided at one hook run.
    ModuleOutcome <=> enums::ModuleOutcome { Continue, Modify, Block, Error, Timeout }
);
mirror_enum!(
    /// What a user thought of an answer: thumbs `up` or `down`.
    Rating <=> enums::FeedbackRating { Up, Down }
);
