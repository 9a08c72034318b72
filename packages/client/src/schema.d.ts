/**
 * Generated from Switchboard's OpenAPI document by openapi-typescript: do not edit.
 * Regenerate with `npm run client:generate` after changing a route.
 */

export interface paths {
    "/api/admin/phone-numbers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a phone number
         * @description Refused (409) while an assistant uses the number (its own, or for warm transfers) or a call runs on it. Calls made on it keep the number as text and are never deleted.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Give a phone number to another user
         * @description Refused (409) while an assistant uses the number (its own, or for warm transfers) or a call runs on it. A Twilio number needs Twilio credentials its new owner's calls can use (422 on `user_id`). The old owner's name for the number (`label`) is cleared.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the user who gets the number */
                        user_id: number | string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description sandbox or twilio */
                                carrier: string;
                                /** @description the carrier's id of the number (Twilio: PN…) */
                                carrier_sid: string | null;
                                country_code: string;
                                id: number;
                                is_available: boolean;
                                /** @description the owner's name for the number */
                                label: string | null;
                                phone_number: string;
                                type_label: string;
                                /** @description the owner */
                                user_id: number;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/admin/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every user, by id, paginated */
        get: {
            parameters: {
                query?: {
                    page?: string;
                    per_page?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                /** @description tokens not revoked */
                                active_tokens: number;
                                /** @description ISO 8601 */
                                created_at: string;
                                /** @description ISO 8601; null while the account is active */
                                disabled_at: string | null;
                                email: string;
                                id: number;
                                max_calls_in_parallel: number;
                                max_tools: number;
                                name: string;
                            }[];
                            first_page_url: string;
                            from: number | null;
                            last_page: number;
                            last_page_url: string;
                            links: {
                                active: boolean;
                                label: string;
                                url: string | null;
                            }[];
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number | null;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a user and its first API token */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: email */
                        email: string;
                        max_calls_in_parallel?: number;
                        max_tools?: number;
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description tokens not revoked */
                                active_tokens: number;
                                /** @description ISO 8601 */
                                created_at: string;
                                /** @description ISO 8601; null while the account is active */
                                disabled_at: string | null;
                                email: string;
                                id: number;
                                max_calls_in_parallel: number;
                                max_tools: number;
                                name: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}/carriers/twilio": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's Twilio account (the SIDs and a hint of the auth token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                account_sid: string;
                                api_key_sid: string | null;
                                /** @description the last characters of the auth token; the secrets are never shown */
                                auth_token_hint: string;
                                created_at: string;
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /**
         * Store (or replace) a user's Twilio credentials: account SID and auth token, optionally an API key used for REST
         * @description Twilio is asked first (`GET /2010-04-01/Accounts/{AccountSid}.json` with the API key when given, else the SID and auth token): credentials it refuses get 422 with a field error, and when Twilio cannot be reached (503) or answers with an error (502) nothing is saved.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        account_sid: string;
                        api_key_secret?: string | null;
                        api_key_sid?: string | null;
                        auth_token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                account_sid: string;
                                api_key_sid: string | null;
                                /** @description the last characters of the auth token; the secrets are never shown */
                                auth_token_hint: string;
                                created_at: string;
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Remove a user's Twilio credentials; their calls use the deployment's again */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Disable a user: its tokens stop working at once and its running campaigns stop; calls in flight finish */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description tokens not revoked */
                                active_tokens: number;
                                /** @description ISO 8601 */
                                created_at: string;
                                /** @description ISO 8601; null while the account is active */
                                disabled_at: string | null;
                                email: string;
                                id: number;
                                max_calls_in_parallel: number;
                                max_tools: number;
                                name: string;
                            };
                            message: string;
                            stopped_campaigns: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable a disabled user again; its campaigns stay stopped until started */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description tokens not revoked */
                                active_tokens: number;
                                /** @description ISO 8601 */
                                created_at: string;
                                /** @description ISO 8601; null while the account is active */
                                disabled_at: string | null;
                                email: string;
                                id: number;
                                max_calls_in_parallel: number;
                                max_tools: number;
                                name: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}/phone-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's phone numbers, by id */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description sandbox or twilio */
                                carrier: string;
                                /** @description the carrier's id of the number (Twilio: PN…) */
                                carrier_sid: string | null;
                                country_code: string;
                                id: number;
                                is_available: boolean;
                                /** @description the owner's name for the number */
                                label: string | null;
                                phone_number: string;
                                type_label: string;
                                /** @description the owner */
                                user_id: number;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Add a phone number to a user's account (carrier `sandbox` by default, or `twilio` with the number's PN… sid) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        carrier?: "sandbox" | "twilio";
                        carrier_sid?: string | null;
                        country_code?: string;
                        phone_number: string;
                        /** @enum {string} */
                        type_label: "Normal" | "SIP" | "Caller ID";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description sandbox or twilio */
                                carrier: string;
                                /** @description the carrier's id of the number (Twilio: PN…) */
                                carrier_sid: string | null;
                                country_code: string;
                                id: number;
                                is_available: boolean;
                                /** @description the owner's name for the number */
                                label: string | null;
                                phone_number: string;
                                type_label: string;
                                /** @description the owner */
                                user_id: number;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's API tokens, oldest first, revoked ones included (never the token itself) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description ISO 8601 */
                                created_at: string;
                                id: number;
                                /** @description ISO 8601; null while the token works */
                                revoked_at: string | null;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Issue another API token for a user */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{id}/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API token at once */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    tokenId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/voices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every voice: public ones (user_id null) and private ones of a user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: number;
                                mode: string;
                                name: string;
                                provider: string;
                                provider_voice_id: string | null;
                                user_id: number | null;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Add a public voice, or a private voice of one user
         * @description `provider` (default `local`) speaks the voice; `provider_voice_id` is that provider's own voice id (ElevenLabs voice id, OpenAI voice name; null = its default).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        mode: "pipeline" | "multimodal";
                        name: string;
                        /** @enum {string} */
                        provider?: "local" | "elevenlabs" | "openai";
                        provider_voice_id?: string | null;
                        user_id?: number | string | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/leads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Update a lead: campaign_id, phone_number, status, variables (merged); other fields are refused */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description an id; a string of digits is accepted too */
                        campaign_id?: number | string;
                        /** @description normalised to E.164; an invalid number (or a non-string) answers 422 Invalid phone number */
                        phone_number?: string;
                        /** @enum {string} */
                        status?: "created" | "completed" | "reached-max-retries";
                        /** @description merged into the stored variables (top-level keys), not replacing them */
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors?: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an assistant (request names of spec 4.9, or the record names as aliases) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description Fields of spec 4.9; required: assistant_name (or name), voice_id, calls_direction (or type). Record names are accepted as aliases. */
            requestBody: {
                content: {
                    "application/json": {
                        allow_interruptions?: boolean;
                        /** @enum {string} */
                        ambient_sound?: "none" | "office" | "cafe";
                        ambient_sound_volume?: number;
                        assistant_name?: string;
                        backchannel_words?: string[];
                        /** @enum {string} */
                        calls_direction?: "receive" | "make";
                        enable_noise_cancellation?: boolean;
                        end_call_on_voicemail?: boolean | 0 | 1;
                        end_call_tool?: {
                            description?: string | null;
                        };
                        "end_call_tool.description"?: string | null;
                        endpoint_sensitivity?: number;
                        /** @enum {string} */
                        endpoint_type?: "vad" | "ai";
                        /** @enum {string} */
                        engine_type?: "pipeline" | "multimodal";
                        filler_audios?: boolean;
                        filler_config?: {
                            negative?: string[];
                            neutral?: string[];
                            positive?: string[];
                            question?: string[];
                        };
                        fillers?: boolean | 0 | 1;
                        include_recording_in_webhook?: boolean;
                        initial_message?: string;
                        interrupt_sensitivity?: number;
                        is_webhook_active?: boolean;
                        knowledgebase_id?: number | string | null;
                        /** @enum {string} */
                        knowledgebase_mode?: "prompt" | "function_call";
                        language?: string;
                        language_id?: number | string;
                        llm_model?: string;
                        llm_model_id?: number | string;
                        llm_temperature?: number;
                        max_call_duration?: number;
                        max_duration?: number;
                        max_silence_duration?: number;
                        min_interrupt_words?: number;
                        /** @enum {string} */
                        mode?: "pipeline" | "multimodal";
                        name?: string;
                        noise_cancellation?: boolean;
                        phone_number_id?: number | string | null;
                        post_call_evaluation?: boolean;
                        post_call_schema?: {
                            description: string;
                            name: string;
                            /** @enum {string} */
                            type: "string" | "number" | "bool";
                        }[];
                        re_engagement_interval?: number;
                        record?: boolean;
                        record_call?: boolean;
                        reengagement_interval?: number;
                        send_webhook_only_on_completed?: boolean;
                        silence_goodbye_message?: string | null;
                        speech_speed?: number;
                        /** @enum {string} */
                        status?: "active" | "inactive";
                        synthesizer_provider_id?: number | string | null;
                        system_prompt?: string;
                        timezone?: string;
                        tool_ids?: (number | string)[];
                        tools?: unknown[];
                        transcriber_provider_id?: number | string | null;
                        /** @enum {string} */
                        type?: "inbound" | "outbound";
                        use_min_interrupt_words?: boolean;
                        variables?: {
                            [key: string]: unknown;
                        };
                        voice_id?: number | string;
                        voice_mail_message?: string | null;
                        voice_similarity?: number;
                        voice_stability?: number;
                        wait_for_customer?: boolean;
                        webhook_url?: string | null;
                        /** @enum {string} */
                        who_speaks_first?: "AI assistant" | "Customer";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allow_interruptions: boolean;
                                ambient_sound: string;
                                ambient_sound_volume: string;
                                /** @description words said over a reply that never interrupt it ("mhm", "yeah"…), in addition to the built-in list of the assistant's language */
                                backchannel_words: string[];
                                created_at: string;
                                deleted_at: string | null;
                                enable_noise_cancellation: boolean;
                                /** @description 1 yes, 0 no */
                                end_call_on_voicemail: number;
                                endpoint_sensitivity: number;
                                endpoint_type: string;
                                engine_id: number | null;
                                filler_config: {
                                    negative: string[];
                                    neutral: string[];
                                    positive: string[];
                                    question: string[];
                                };
                                /** @description 1 enabled, 0 disabled */
                                fillers: number;
                                flows_platform_id: number | null;
                                id: number;
                                inbound_webhook_url: string | null;
                                include_recording_in_webhook: boolean;
                                initial_message: string;
                                instance_id: number;
                                interrupt_sensitivity: number;
                                is_webhook_active: boolean;
                                knowledgebase_id: number | null;
                                knowledgebase_mode: string;
                                language: string | null;
                                language_id: number | null;
                                llm_model_id: number | null;
                                llm_temperature: string;
                                max_duration: number;
                                max_silence_duration: number;
                                min_interrupt_words: number;
                                mode: string;
                                multimodal_model_id: number | null;
                                name: string;
                                phone_number_id: number | null;
                                post_call_evaluation: boolean;
                                post_call_schema: {
                                    description: string;
                                    name: string;
                                    type: string;
                                }[];
                                record: boolean;
                                reengagement_interval: number;
                                send_webhook_only_on_completed: boolean;
                                /** @description the closing line said before the call is hung up for the caller's silence (null: the default line in the assistant's language; empty: none) */
                                silence_goodbye_message: string | null;
                                speech_speed: string;
                                /** @description active or inactive */
                                status: string;
                                synthesizer_id: number | null;
                                synthesizer_provider_id: number | null;
                                system_prompt: string;
                                timezone: string;
                                tool_ids: number[];
                                tools: {
                                    data: {
                                        [key: string]: unknown;
                                    };
                                    /** @description end_call, a built-in tool type (issue 20) or mid_call_tool */
                                    type: string;
                                }[];
                                transcriber_id: number | null;
                                transcriber_provider_id: number | null;
                                /** @description inbound or outbound */
                                type: string;
                                updated_at: string;
                                user_id: number;
                                uuid: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                                voice_id: number;
                                /** @description extension: the message left on a voicemail box (null: none) */
                                voice_mail_message: string | null;
                                voice_similarity: string;
                                voice_stability: string;
                                wait_for_customer: boolean;
                                webhook_url: string | null;
                                widget_settings: {
                                    [key: string]: unknown;
                                };
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistant/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one assistant */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allow_interruptions: boolean;
                                ambient_sound: string;
                                ambient_sound_volume: string;
                                /** @description words said over a reply that never interrupt it ("mhm", "yeah"…), in addition to the built-in list of the assistant's language */
                                backchannel_words: string[];
                                created_at: string;
                                deleted_at: string | null;
                                enable_noise_cancellation: boolean;
                                /** @description 1 yes, 0 no */
                                end_call_on_voicemail: number;
                                endpoint_sensitivity: number;
                                endpoint_type: string;
                                engine_id: number | null;
                                filler_config: {
                                    negative: string[];
                                    neutral: string[];
                                    positive: string[];
                                    question: string[];
                                };
                                /** @description 1 enabled, 0 disabled */
                                fillers: number;
                                flows_platform_id: number | null;
                                id: number;
                                inbound_webhook_url: string | null;
                                include_recording_in_webhook: boolean;
                                initial_message: string;
                                instance_id: number;
                                interrupt_sensitivity: number;
                                is_webhook_active: boolean;
                                knowledgebase_id: number | null;
                                knowledgebase_mode: string;
                                language: string | null;
                                language_id: number | null;
                                llm_model_id: number | null;
                                llm_temperature: string;
                                max_duration: number;
                                max_silence_duration: number;
                                min_interrupt_words: number;
                                mode: string;
                                multimodal_model_id: number | null;
                                name: string;
                                phone_number_id: number | null;
                                post_call_evaluation: boolean;
                                post_call_schema: {
                                    description: string;
                                    name: string;
                                    type: string;
                                }[];
                                record: boolean;
                                reengagement_interval: number;
                                send_webhook_only_on_completed: boolean;
                                /** @description the closing line said before the call is hung up for the caller's silence (null: the default line in the assistant's language; empty: none) */
                                silence_goodbye_message: string | null;
                                speech_speed: string;
                                /** @description active or inactive */
                                status: string;
                                synthesizer_id: number | null;
                                synthesizer_provider_id: number | null;
                                system_prompt: string;
                                timezone: string;
                                tool_ids: number[];
                                tools: {
                                    data: {
                                        [key: string]: unknown;
                                    };
                                    /** @description end_call, a built-in tool type (issue 20) or mid_call_tool */
                                    type: string;
                                }[];
                                transcriber_id: number | null;
                                transcriber_provider_id: number | null;
                                /** @description inbound or outbound */
                                type: string;
                                updated_at: string;
                                user_id: number;
                                uuid: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                                voice_id: number;
                                /** @description extension: the message left on a voicemail box (null: none) */
                                voice_mail_message: string | null;
                                voice_similarity: string;
                                voice_stability: string;
                                wait_for_customer: boolean;
                                webhook_url: string | null;
                                widget_settings: {
                                    [key: string]: unknown;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /** Update an assistant; only supplied fields change, tool_ids replaces all assignments */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            /** @description Fields of spec 4.9, all optional; record names are accepted as aliases; status active/inactive. */
            requestBody: {
                content: {
                    "application/json": {
                        allow_interruptions?: boolean;
                        /** @enum {string} */
                        ambient_sound?: "none" | "office" | "cafe";
                        ambient_sound_volume?: number;
                        assistant_name?: string;
                        backchannel_words?: string[];
                        /** @enum {string} */
                        calls_direction?: "receive" | "make";
                        enable_noise_cancellation?: boolean;
                        end_call_on_voicemail?: boolean | 0 | 1;
                        end_call_tool?: {
                            description?: string | null;
                        };
                        "end_call_tool.description"?: string | null;
                        endpoint_sensitivity?: number;
                        /** @enum {string} */
                        endpoint_type?: "vad" | "ai";
                        /** @enum {string} */
                        engine_type?: "pipeline" | "multimodal";
                        filler_audios?: boolean;
                        filler_config?: {
                            negative?: string[];
                            neutral?: string[];
                            positive?: string[];
                            question?: string[];
                        };
                        fillers?: boolean | 0 | 1;
                        include_recording_in_webhook?: boolean;
                        initial_message?: string;
                        interrupt_sensitivity?: number;
                        is_webhook_active?: boolean;
                        knowledgebase_id?: number | string | null;
                        /** @enum {string} */
                        knowledgebase_mode?: "prompt" | "function_call";
                        language?: string;
                        language_id?: number | string;
                        llm_model?: string;
                        llm_model_id?: number | string;
                        llm_temperature?: number;
                        max_call_duration?: number;
                        max_duration?: number;
                        max_silence_duration?: number;
                        min_interrupt_words?: number;
                        /** @enum {string} */
                        mode?: "pipeline" | "multimodal";
                        name?: string;
                        noise_cancellation?: boolean;
                        phone_number_id?: number | string | null;
                        post_call_evaluation?: boolean;
                        post_call_schema?: {
                            description: string;
                            name: string;
                            /** @enum {string} */
                            type: "string" | "number" | "bool";
                        }[];
                        re_engagement_interval?: number;
                        record?: boolean;
                        record_call?: boolean;
                        reengagement_interval?: number;
                        send_webhook_only_on_completed?: boolean;
                        silence_goodbye_message?: string | null;
                        speech_speed?: number;
                        /** @enum {string} */
                        status?: "active" | "inactive";
                        synthesizer_provider_id?: number | string | null;
                        system_prompt?: string;
                        timezone?: string;
                        tool_ids?: (number | string)[];
                        tools?: unknown[];
                        transcriber_provider_id?: number | string | null;
                        /** @enum {string} */
                        type?: "inbound" | "outbound";
                        use_min_interrupt_words?: boolean;
                        variables?: {
                            [key: string]: unknown;
                        };
                        voice_id?: number | string;
                        voice_mail_message?: string | null;
                        voice_similarity?: number;
                        voice_stability?: number;
                        wait_for_customer?: boolean;
                        webhook_url?: string | null;
                        /** @enum {string} */
                        who_speaks_first?: "AI assistant" | "Customer";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: number;
                                mode: string;
                                name: string;
                                status: string;
                                type: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete an assistant (soft delete; its phone number is released) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's assistants (bare array, the older list existing clients use; oldest first) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            allow_interruptions: boolean;
                            ambient_sound: string;
                            ambient_sound_volume: string;
                            /** @description words said over a reply that never interrupt it ("mhm", "yeah"…), in addition to the built-in list of the assistant's language */
                            backchannel_words: string[];
                            created_at: string;
                            deleted_at: string | null;
                            enable_noise_cancellation: boolean;
                            /** @description 1 yes, 0 no */
                            end_call_on_voicemail: number;
                            endpoint_sensitivity: number;
                            endpoint_type: string;
                            engine_id: number | null;
                            filler_config: {
                                negative: string[];
                                neutral: string[];
                                positive: string[];
                                question: string[];
                            };
                            /** @description 1 enabled, 0 disabled */
                            fillers: number;
                            flows_platform_id: number | null;
                            id: number;
                            inbound_webhook_url: string | null;
                            include_recording_in_webhook: boolean;
                            initial_message: string;
                            instance_id: number;
                            interrupt_sensitivity: number;
                            is_webhook_active: boolean;
                            knowledgebase_id: number | null;
                            knowledgebase_mode: string;
                            language: string | null;
                            language_id: number | null;
                            llm_model_id: number | null;
                            llm_temperature: string;
                            max_duration: number;
                            max_silence_duration: number;
                            min_interrupt_words: number;
                            mode: string;
                            multimodal_model_id: number | null;
                            name: string;
                            phone_number_id: number | null;
                            post_call_evaluation: boolean;
                            post_call_schema: {
                                description: string;
                                name: string;
                                type: string;
                            }[];
                            record: boolean;
                            reengagement_interval: number;
                            send_webhook_only_on_completed: boolean;
                            /** @description the closing line said before the call is hung up for the caller's silence (null: the default line in the assistant's language; empty: none) */
                            silence_goodbye_message: string | null;
                            speech_speed: string;
                            /** @description active or inactive */
                            status: string;
                            synthesizer_id: number | null;
                            synthesizer_provider_id: number | null;
                            system_prompt: string;
                            timezone: string;
                            tool_ids: number[];
                            tools: {
                                data: {
                                    [key: string]: unknown;
                                };
                                /** @description end_call, a built-in tool type (issue 20) or mid_call_tool */
                                type: string;
                            }[];
                            transcriber_id: number | null;
                            transcriber_provider_id: number | null;
                            /** @description inbound or outbound */
                            type: string;
                            updated_at: string;
                            user_id: number;
                            uuid: string;
                            variables: {
                                [key: string]: unknown;
                            };
                            voice_id: number;
                            /** @description extension: the message left on a voicemail box (null: none) */
                            voice_mail_message: string | null;
                            voice_similarity: string;
                            voice_stability: string;
                            wait_for_customer: boolean;
                            webhook_url: string | null;
                            widget_settings: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/test-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An assistant's test runs, newest first, paginated (per_page 1-100, default 15) */
        get: {
            parameters: {
                query?: {
                    page?: string;
                    per_page?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                assistant_id: number;
                                assistant_version: number | null;
                                created_at: string;
                                error: string | null;
                                errored: number;
                                failed: number;
                                finished_at: string | null;
                                id: number;
                                passed: number;
                                started_at: string | null;
                                /** @enum {string} */
                                status: "queued" | "running" | "passed" | "failed" | "error";
                                total: number;
                                unsaved_changes: boolean;
                            }[];
                            first_page_url: string;
                            from: number | null;
                            last_page: number;
                            last_page_url: string;
                            links: {
                                active: boolean;
                                label: string;
                                url: string | null;
                            }[];
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number | null;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Run test scenarios against the assistant (current version, an earlier one, or unsaved changes); answered at once, the run goes on in the background
         * @description `scenarios`: documents (YAML/JSON text) or scenario objects; `scenario_ids`: stored scenarios; neither: every stored scenario. `version`: a number from the versions list. `assistant_overrides`: fields of the update request, for this run only (the stored assistant does not change). Poll `GET /api/user/test-runs/{id}` for progress. Runs are not calls: they are not listed, billed or sent to webhooks.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            /** @description Without scenarios and scenario_ids, every stored scenario of the assistant runs. */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Unsaved changes: fields of the update request applied for this run only */
                        assistant_overrides?: {
                            [key: string]: unknown;
                        };
                        /** @description Stored scenarios of the assistant to run */
                        scenario_ids?: (number | string)[];
                        /** @description Scenario documents (YAML/JSON text) or scenario objects; a document may hold several scenarios */
                        scenarios?: (string | {
                            [key: string]: unknown;
                        })[];
                        /** @description The assistant's version to run (default: the current one) */
                        version?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: number;
                                /** @enum {string} */
                                status: "queued" | "running";
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                            scenario_errors?: {
                                line: number;
                                message: string;
                                scenario?: number;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/test-scenarios": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An assistant's stored test scenarios, oldest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                created_at: string;
                                id: number;
                                name: string;
                                source: string;
                                updated_at: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Store a test scenario (YAML or JSON); refused with the line and reason of each problem */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The scenario document (YAML or JSON), one scenario */
                        source: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                created_at: string;
                                id: number;
                                name: string;
                                source: string;
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                            scenario_errors?: {
                                line: number;
                                message: string;
                                scenario?: number;
                            }[];
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/test-scenarios/{scenarioId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One stored test scenario */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    scenarioId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                created_at: string;
                                id: number;
                                name: string;
                                source: string;
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /** Replace a stored test scenario's document */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    scenarioId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The scenario document (YAML or JSON), one scenario */
                        source: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                created_at: string;
                                id: number;
                                name: string;
                                source: string;
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                            scenario_errors?: {
                                line: number;
                                message: string;
                                scenario?: number;
                            }[];
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a stored test scenario (runs that ran it keep their copy) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    scenarioId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/test-scenarios/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a scenario document against the assistant without storing it (the editor checks as you type) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A scenario document to check (YAML or JSON) */
                        source: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                errors: {
                                    line: number;
                                    message: string;
                                }[];
                                scenarios: {
                                    expectations: number;
                                    mode: string;
                                    name: string;
                                    repeat: number;
                                }[];
                                valid: boolean;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An assistant's versions, newest first (one per saved change), paginated */
        get: {
            parameters: {
                query?: {
                    page?: string;
                    per_page?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                /**
                                 * @description What made it; `baseline`: the state before the first change recorded
                                 * @enum {string}
                                 */
                                action: "create" | "update" | "webhook" | "restore" | "baseline";
                                /** @description The account's name */
                                author: string;
                                /** @description Record fields that differ from the version before it */
                                changed_fields: string[];
                                created_at: string;
                                number: number;
                                restored_from: number | null;
                                /**
                                 * @description The client the change came from (the X-Switchboard-Client header)
                                 * @enum {string}
                                 */
                                via: "api" | "dashboard" | "cli";
                            }[];
                            first_page_url: string;
                            from: number | null;
                            last_page: number;
                            last_page_url: string;
                            links: {
                                active: boolean;
                                label: string;
                                url: string | null;
                            }[];
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number | null;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/versions/{number}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One version: the assistant record it saved and what differs from another version
         * @description `changes` compares with `compare_to` (default: the version before it; none for the first).
         */
        get: {
            parameters: {
                query?: {
                    compare_to?: string;
                };
                header?: never;
                path: {
                    id: string;
                    number: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /**
                                 * @description What made it; `baseline`: the state before the first change recorded
                                 * @enum {string}
                                 */
                                action: "create" | "update" | "webhook" | "restore" | "baseline";
                                /** @description The account's name */
                                author: string;
                                /** @description Record fields that differ from the version before it */
                                changed_fields: string[];
                                changes: {
                                    after: unknown;
                                    before: unknown;
                                    field: string;
                                }[];
                                compared_to: number | null;
                                created_at: string;
                                number: number;
                                record: {
                                    [key: string]: unknown;
                                };
                                restored_from: number | null;
                                /**
                                 * @description The client the change came from (the X-Switchboard-Client header)
                                 * @enum {string}
                                 */
                                via: "api" | "dashboard" | "cli";
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/versions/{number}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restore a version: the assistant gets its settings back, saved as a new version */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    number: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: number;
                                restored_from: number;
                                version: number;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/{id}/widget-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The live widget keys of an assistant */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allowed_origins: string[];
                                assistant_id: number;
                                created_at: string | null;
                                id: number;
                                key: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a widget key for an assistant
         * @description The key is public: it goes into the `<script>` tag on your site. Calls are accepted only from `allowed_origins`, within the per-key and per-visitor limits.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        allowed_origins: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allowed_origins: string[];
                                assistant_id: number;
                                created_at: string | null;
                                id: number;
                                key: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/disable-inbound-webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Disable inbound-call notifications (inbound_webhook_url null) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        assistant_id: number | string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: unknown[];
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/disable-webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Disable the post-call webhook (is_webhook_active false, webhook_url null) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        assistant_id: number | string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: unknown[];
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/enable-inbound-webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable inbound-call notifications to webhook_url */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        assistant_id: number | string;
                        webhook_url: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: unknown[];
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's assistants, paginated (per_page 1-100, default 10; page) */
        get: {
            parameters: {
                query?: {
                    page?: string;
                    per_page?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                allow_interruptions: boolean;
                                ambient_sound: string;
                                ambient_sound_volume: string;
                                /** @description words said over a reply that never interrupt it ("mhm", "yeah"…), in addition to the built-in list of the assistant's language */
                                backchannel_words: string[];
                                created_at: string;
                                deleted_at: string | null;
                                enable_noise_cancellation: boolean;
                                /** @description 1 yes, 0 no */
                                end_call_on_voicemail: number;
                                endpoint_sensitivity: number;
                                endpoint_type: string;
                                engine_id: number | null;
                                filler_config: {
                                    negative: string[];
                                    neutral: string[];
                                    positive: string[];
                                    question: string[];
                                };
                                /** @description 1 enabled, 0 disabled */
                                fillers: number;
                                flows_platform_id: number | null;
                                id: number;
                                inbound_webhook_url: string | null;
                                include_recording_in_webhook: boolean;
                                initial_message: string;
                                instance_id: number;
                                interrupt_sensitivity: number;
                                is_webhook_active: boolean;
                                knowledgebase_id: number | null;
                                knowledgebase_mode: string;
                                language: string | null;
                                language_id: number | null;
                                llm_model_id: number | null;
                                llm_temperature: string;
                                max_duration: number;
                                max_silence_duration: number;
                                min_interrupt_words: number;
                                mode: string;
                                multimodal_model_id: number | null;
                                name: string;
                                phone_number_id: number | null;
                                post_call_evaluation: boolean;
                                post_call_schema: {
                                    description: string;
                                    name: string;
                                    type: string;
                                }[];
                                record: boolean;
                                reengagement_interval: number;
                                send_webhook_only_on_completed: boolean;
                                /** @description the closing line said before the call is hung up for the caller's silence (null: the default line in the assistant's language; empty: none) */
                                silence_goodbye_message: string | null;
                                speech_speed: string;
                                /** @description active or inactive */
                                status: string;
                                synthesizer_id: number | null;
                                synthesizer_provider_id: number | null;
                                system_prompt: string;
                                timezone: string;
                                tool_ids: number[];
                                tools: {
                                    data: {
                                        [key: string]: unknown;
                                    };
                                    /** @description end_call, a built-in tool type (issue 20) or mid_call_tool */
                                    type: string;
                                }[];
                                transcriber_id: number | null;
                                transcriber_provider_id: number | null;
                                /** @description inbound or outbound */
                                type: string;
                                updated_at: string;
                                user_id: number;
                                uuid: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                                voice_id: number;
                                /** @description extension: the message left on a voicemail box (null: none) */
                                voice_mail_message: string | null;
                                voice_similarity: string;
                                voice_stability: string;
                                wait_for_customer: boolean;
                                webhook_url: string | null;
                                widget_settings: {
                                    [key: string]: unknown;
                                };
                            }[];
                            first_page_url: string;
                            from: number | null;
                            last_page: number;
                            last_page_url: string;
                            links: {
                                active: boolean;
                                label: string;
                                url: string | null;
                            }[];
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number | null;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/languages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Languages; the name is the value of language */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            iso_2: string;
                            name: string;
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** LLM models; the name is the value of llm_model */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            name: string;
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/outbound": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's outbound assistants (bare array) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            allow_interruptions: boolean;
                            ambient_sound: string;
                            ambient_sound_volume: string;
                            /** @description words said over a reply that never interrupt it ("mhm", "yeah"…), in addition to the built-in list of the assistant's language */
                            backchannel_words: string[];
                            created_at: string;
                            deleted_at: string | null;
                            enable_noise_cancellation: boolean;
                            /** @description 1 yes, 0 no */
                            end_call_on_voicemail: number;
                            endpoint_sensitivity: number;
                            endpoint_type: string;
                            engine_id: number | null;
                            filler_config: {
                                negative: string[];
                                neutral: string[];
                                positive: string[];
                                question: string[];
                            };
                            /** @description 1 enabled, 0 disabled */
                            fillers: number;
                            flows_platform_id: number | null;
                            id: number;
                            inbound_webhook_url: string | null;
                            include_recording_in_webhook: boolean;
                            initial_message: string;
                            instance_id: number;
                            interrupt_sensitivity: number;
                            is_webhook_active: boolean;
                            knowledgebase_id: number | null;
                            knowledgebase_mode: string;
                            language: string | null;
                            language_id: number | null;
                            llm_model_id: number | null;
                            llm_temperature: string;
                            max_duration: number;
                            max_silence_duration: number;
                            min_interrupt_words: number;
                            mode: string;
                            multimodal_model_id: number | null;
                            name: string;
                            phone_number_id: number | null;
                            post_call_evaluation: boolean;
                            post_call_schema: {
                                description: string;
                                name: string;
                                type: string;
                            }[];
                            record: boolean;
                            reengagement_interval: number;
                            send_webhook_only_on_completed: boolean;
                            /** @description the closing line said before the call is hung up for the caller's silence (null: the default line in the assistant's language; empty: none) */
                            silence_goodbye_message: string | null;
                            speech_speed: string;
                            /** @description active or inactive */
                            status: string;
                            synthesizer_id: number | null;
                            synthesizer_provider_id: number | null;
                            system_prompt: string;
                            timezone: string;
                            tool_ids: number[];
                            tools: {
                                data: {
                                    [key: string]: unknown;
                                };
                                /** @description end_call, a built-in tool type (issue 20) or mid_call_tool */
                                type: string;
                            }[];
                            transcriber_id: number | null;
                            transcriber_provider_id: number | null;
                            /** @description inbound or outbound */
                            type: string;
                            updated_at: string;
                            user_id: number;
                            uuid: string;
                            variables: {
                                [key: string]: unknown;
                            };
                            voice_id: number;
                            /** @description extension: the message left on a voicemail box (null: none) */
                            voice_mail_message: string | null;
                            voice_similarity: string;
                            voice_stability: string;
                            wait_for_customer: boolean;
                            webhook_url: string | null;
                            widget_settings: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/phone-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's phone numbers; type=inbound leaves out Caller ID and assigned numbers */
        get: {
            parameters: {
                query?: {
                    type?: "inbound" | "outbound";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            country_code: string;
                            id: number;
                            is_available: boolean;
                            phone_number: string;
                            type_label: string;
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/synthesizer-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Text-to-speech providers an assistant can use (synthesizer_provider_id); optional language_id filter */
        get: {
            parameters: {
                query?: {
                    language_id?: number | string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            code: string;
                            id: number;
                            name: string;
                        }[];
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/transcriber-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Speech-to-text providers an assistant can use (transcriber_provider_id); optional language_id filter */
        get: {
            parameters: {
                query?: {
                    language_id?: number | string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            code: string;
                            id: number;
                            name: string;
                        }[];
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/assistants/voices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public voices and the caller's own, optionally of one mode */
        get: {
            parameters: {
                query?: {
                    mode?: "pipeline" | "multimodal";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            /** @description pipeline or multimodal */
                            mode: string;
                            name: string;
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's calls, newest first, filtered and paginated
         * @description Filters: status, type, phone_number (the client number; normalised to E.164 when it parses), assistant_id, campaign_id, date_from and date_to (YYYY-MM-DD, inclusive whole UTC days). per_page 1-100 (default 15), page from 1.
         */
        get: {
            parameters: {
                query?: {
                    assistant_id?: string;
                    campaign_id?: string;
                    date_from?: string;
                    date_to?: string;
                    page?: string;
                    per_page?: string;
                    phone_number?: string;
                    /** @description Order of the list: created_at, duration or total_cost, descending with a leading "-"; default -created_at (newest first). Ties are ordered by id in the same direction. */
                    sort?: string;
                    status?: string;
                    type?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                /** @description human, machine or unknown */
                                answered_by: string;
                                /** @description assistant that handled the call (kept after the assistant is deleted) */
                                assistant_name: string;
                                assistant_phone_number: string;
                                /** @description campaign of the call; null when the call is not part of a campaign */
                                campaign_name: string | null;
                                carrier_cost: number;
                                client_phone_number: string;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                /** @description seconds */
                                duration: number;
                                evaluation: {
                                    [key: string]: unknown;
                                };
                                id: number;
                                recording_url: string | null;
                                /** @description initiated, ringing, busy, in-progress, ended, completed, ended_by_customer, ended_by_assistant, no-answer, failed */
                                status: string;
                                total_cost: number;
                                transcript: string;
                                /** @description inbound, outbound or web */
                                type: string;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                                webhook_response: {
                                    [key: string]: unknown;
                                };
                            }[];
                            first_page_url: string;
                            from: number | null;
                            last_page: number;
                            last_page_url: string;
                            links: {
                                active: boolean;
                                label: string;
                                url: string | null;
                            }[];
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number | null;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/calls/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of the caller's calls */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description human, machine or unknown */
                            answered_by: string;
                            /** @description assistant that handled the call (kept after the assistant is deleted) */
                            assistant_name: string;
                            assistant_phone_number: string;
                            /** @description campaign of the call; null when the call is not part of a campaign */
                            campaign_name: string | null;
                            carrier_cost: number;
                            client_phone_number: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            created_at: string;
                            /** @description seconds */
                            duration: number;
                            evaluation: {
                                [key: string]: unknown;
                            };
                            id: number;
                            recording_url: string | null;
                            /** @description initiated, ringing, busy, in-progress, ended, completed, ended_by_customer, ended_by_assistant, no-answer, failed */
                            status: string;
                            total_cost: number;
                            transcript: string;
                            /** @description inbound, outbound or web */
                            type: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updated_at: string;
                            variables: {
                                [key: string]: unknown;
                            };
                            webhook_response: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete one of the caller's calls and its recording; a call still running is refused (409) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/calls/{id}/test-scenario": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turn a finished call into a scripted test scenario: its caller's lines, its tool calls as expectations, its status */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The scenario name (default: "Call {id} replayed") */
                        name?: string;
                        /** @description Store it among the assistant's test scenarios */
                        save?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                name: string;
                                scenario: {
                                    assistant_id: number;
                                    created_at: string;
                                    id: number;
                                    name: string;
                                    source: string;
                                    updated_at: string;
                                } | null;
                                source: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                name: string;
                                scenario: {
                                    assistant_id: number;
                                    created_at: string;
                                    id: number;
                                    name: string;
                                    source: string;
                                    updated_at: string;
                                } | null;
                                source: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/calls/{id}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The turns of one of the caller's calls, with each turn's stage timings
         * @description One object per turn, in order: the caller's and the assistant's text, whether the caller interrupted, barge-ins, filler phrases, and milliseconds from the turn's start (the caller's end of speech) to the final transcript, the LLM's first token, the speech provider's first byte and the first audio frame sent; when a provider failed, which one and why; the knowledge base's passages the turn used (document, passage, score); and the functions the model called, with their arguments, answers and durations. Turns appear as they finish.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The version of the assistant the call was placed with (GET /api/user/assistants/{id}/versions/{number}); null for calls placed before versions were kept */
                            assistant_version: number | null;
                            data: {
                                /** @description What the assistant said; when interrupted, only what the caller heard */
                                assistant_text: string;
                                /** @description Each time the caller cut the assistant off */
                                barge_ins: {
                                    at_ms: number;
                                    heard_text: string;
                                }[];
                                /** @description What the caller said (null for turns the assistant started) */
                                caller_text: string | null;
                                /** @description The first provider failure in the turn (speech-to-text, the language model, text-to-speech) and the provider's error; null when none failed */
                                error: {
                                    message: string;
                                    /** @enum {string} */
                                    stage: "stt" | "llm" | "tts";
                                } | null;
                                /** @description Filler phrases spoken while a tool ran or the LLM was slow */
                                fillers: {
                                    at_ms: number;
                                    /** @enum {string} */
                                    reason: "tool" | "slow-llm";
                                    text: string;
                                }[];
                                interrupted: boolean;
                                /** @enum {string} */
                                kind: "greeting" | "reply" | "reengagement" | "voicemail";
                                /** @description The knowledge base's passages the turn used, one entry per search */
                                knowledge: {
                                    /**
                                     * @description function_call: the model searched the knowledge base; prompt: the assistant's knowledge_base_mode put the passages before the reply
                                     * @enum {string}
                                     */
                                    mode: "function_call" | "prompt";
                                    passages: {
                                        /** @description The passage (null: the whole document was in the prompt) */
                                        chunk_id: number | null;
                                        document_id: number;
                                        document_name: string;
                                        /** @description The headings above the passage */
                                        heading: string;
                                        /** @description The search's score (reciprocal-rank fusion of its lists); null for a whole document */
                                        score: number | null;
                                    }[];
                                    /** @description What was searched for; null when the whole knowledge base was in the prompt */
                                    query: string | null;
                                }[];
                                /** @description 0-based, in the order the turns began */
                                position: number;
                                /** @description ISO 8601 (UTC): the caller's end of speech, or when the assistant chose to speak on its own */
                                started_at: string;
                                timings: {
                                    /** @description Milliseconds from the turn's start to the final transcript; null when it did not happen */
                                    final_transcript_ms: number | null;
                                    /** @description Milliseconds from the turn's start to the first audio frame sent to the caller; null when it did not happen */
                                    first_audio_ms: number | null;
                                    /** @description Milliseconds from the turn's start to the LLM's first token; null when it did not happen */
                                    llm_first_token_ms: number | null;
                                    /** @description Milliseconds from the turn's start to the text-to-speech provider's first audio byte; null when it did not happen */
                                    tts_first_byte_ms: number | null;
                                };
                                /** @description The functions the model called in the turn, in order, with their answers */
                                tool_calls: {
                                    /** @description What the model read back (JSON text: a tool's HTTP status and body, or the error; at most 4,000 characters kept) */
                                    answer: string;
                                    /** @description The arguments as the model wrote them (JSON text; at most 4,000 characters kept) */
                                    arguments: string;
                                    /** @description Milliseconds from the turn's start to the model's call */
                                    at_ms: number;
                                    duration_ms: number;
                                    /** @description The function: a mid-call tool, a built-in (end_call, transfer_call …) or search_knowledge_base */
                                    name: string;
                                    /** @description false when the tool failed (an error status, a timeout, a refused target) or the function did not run */
                                    ok: boolean;
                                }[];
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/calls/{id}/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The webhook delivery attempts of one of the caller's calls, oldest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description 1 for the first attempt of a message, 2 for its first retry, ... */
                                attempt: number;
                                /** @description when the attempt started, ISO 8601 (UTC) */
                                created_at: string;
                                duration_ms: number | null;
                                /** @description null for a 2xx answer */
                                error: string | null;
                                id: number;
                                /** @enum {string} */
                                kind: "post_call" | "inbound";
                                /** @description Standard Webhooks message id (the webhook-id header); the same for every attempt of one message */
                                message_id: string;
                                /** @description HTTP status of the answer; null when no answer came (timeout, refused address, network error, webhook disabled) */
                                status_code: number | null;
                                url: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/calls/{id}/webhook-deliveries/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a finished call's webhooks again, as new messages with the usual retries
         * @description Queues one new message per webhook configured now (the post-call webhook when active, and the inbound webhook for inbound calls), ignoring send_webhook_only_on_completed because you ask for this call explicitly. 422 "No webhook is configured for this call." when none is configured; 422 "The call has not finished yet." while the call is still live.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @enum {string} */
                                kind: "post_call" | "inbound";
                                message_id: string;
                                url: string;
                            }[];
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/campaign/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of the caller's campaigns */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allowed_days: string[];
                                allowed_hours_end_time: string;
                                allowed_hours_start_time: string;
                                assistant_id: number;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                goal_completion_variable: string | null;
                                id: number;
                                mark_complete_when_no_leads: boolean;
                                max_calls_in_parallel: number;
                                max_retries: number;
                                name: string;
                                retry_interval: number;
                                retry_on_goal_incomplete: boolean;
                                retry_on_voicemail: boolean;
                                /** @enum {string} */
                                status: "draft" | "in-progress" | "stopped" | "completed";
                                timezone: string;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /**
         * Change a campaign: only the fields sent change, validated as on create
         * @description Every field may change while the campaign runs (the dialer reads them at its next dial) except assistant_id, which is refused (422) while the campaign is in progress. Status changes go through update-status.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        allowed_days?: string[];
                        /** @description HH:MM, 00:00–23:59 */
                        allowed_hours_end_time?: string;
                        /** @description HH:MM, 00:00–23:59 */
                        allowed_hours_start_time?: string;
                        /** @description an id; a string of digits is accepted too */
                        assistant_id?: number | string;
                        goal_completion_variable?: string | null;
                        mark_complete_when_no_leads?: boolean;
                        max_calls_in_parallel?: number;
                        max_retries?: number;
                        name?: string;
                        /** @description minutes between attempts */
                        retry_interval?: number;
                        retry_on_goal_incomplete?: boolean;
                        retry_on_voicemail?: boolean;
                        /** @description IANA time zone; defaults to the assistant's */
                        timezone?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allowed_days: string[];
                                allowed_hours_end_time: string;
                                allowed_hours_start_time: string;
                                assistant_id: number;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                goal_completion_variable: string | null;
                                id: number;
                                mark_complete_when_no_leads: boolean;
                                max_calls_in_parallel: number;
                                max_retries: number;
                                name: string;
                                retry_interval: number;
                                retry_on_goal_incomplete: boolean;
                                retry_on_voicemail: boolean;
                                /** @enum {string} */
                                status: "draft" | "in-progress" | "stopped" | "completed";
                                timezone: string;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a campaign: stops it and deletes its leads; its calls stay */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/campaign/{id}/leads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of one campaign's leads, by id */
        get: {
            parameters: {
                query?: {
                    page?: string;
                    per_page?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                /** @description Calls made to the primary number so far */
                                attempts: number;
                                campaign: {
                                    id: number;
                                    name: string;
                                };
                                campaign_id: number;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                id: number;
                                /** @description A call to this lead is in progress */
                                in_call: boolean;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC): when the dialer may call this waiting lead again (after a busy, no-answer or failed attempt); null when it may call now or the lead is done */
                                next_attempt_at: string | null;
                                phone_number: string;
                                secondary_contacts: {
                                    created_at: string;
                                    id: number;
                                    phone_number: string;
                                    status: string;
                                    updated_at: string;
                                    variables: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @enum {string} */
                                status: "created" | "completed" | "reached-max-retries";
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                            }[];
                            first_page_url: string;
                            from: number | null;
                            last_page: number;
                            last_page_url: string;
                            links: {
                                active: boolean;
                                label: string;
                                url: string | null;
                            }[];
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number | null;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/campaign/{id}/progress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A campaign in motion: its leads by status, calls in flight, calls finished per minute */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description calls of the campaign that reached a final status, per minute, the last 15 minutes (the current one last) */
                                calls_finished_per_minute: {
                                    count: number;
                                    /** @description YYYY-MM-DD HH:MM:00 (UTC) */
                                    minute: string;
                                }[];
                                /** @description calls of the campaign in initiated, ringing or in-progress */
                                calls_in_flight: number;
                                campaign_id: number;
                                leads: {
                                    completed: number;
                                    created: number;
                                    "reached-max-retries": number;
                                    total: number;
                                };
                                /** @enum {string} */
                                status: "draft" | "in-progress" | "stopped" | "completed";
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's campaigns, by id */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            allowed_days: string[];
                            allowed_hours_end_time: string;
                            allowed_hours_start_time: string;
                            assistant_id: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            created_at: string;
                            goal_completion_variable: string | null;
                            id: number;
                            mark_complete_when_no_leads: boolean;
                            max_calls_in_parallel: number;
                            max_retries: number;
                            name: string;
                            retry_interval: number;
                            retry_on_goal_incomplete: boolean;
                            retry_on_voicemail: boolean;
                            /** @enum {string} */
                            status: "draft" | "in-progress" | "stopped" | "completed";
                            timezone: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updated_at: string;
                        }[];
                    };
                };
            };
        };
        put?: never;
        /** Create a campaign for one of the caller's outbound assistants (status draft) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        allowed_days?: string[];
                        /**
                         * @description HH:MM, 00:00–23:59
                         * @default 23:59
                         */
                        allowed_hours_end_time?: string;
                        /**
                         * @description HH:MM, 00:00–23:59
                         * @default 00:00
                         */
                        allowed_hours_start_time?: string;
                        /** @description an id; a string of digits is accepted too */
                        assistant_id: number | string;
                        goal_completion_variable?: string | null;
                        /** @default true */
                        mark_complete_when_no_leads?: boolean;
                        /** @default 3 */
                        max_calls_in_parallel?: number;
                        /** @default 3 */
                        max_retries?: number;
                        name: string;
                        /**
                         * @description minutes between attempts
                         * @default 60
                         */
                        retry_interval?: number;
                        /** @default false */
                        retry_on_goal_incomplete?: boolean;
                        /** @default false */
                        retry_on_voicemail?: boolean;
                        /** @description IANA time zone; defaults to the assistant's */
                        timezone?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                allowed_days: string[];
                                allowed_hours_end_time: string;
                                allowed_hours_start_time: string;
                                assistant_id: number;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                goal_completion_variable: string | null;
                                id: number;
                                mark_complete_when_no_leads: boolean;
                                max_calls_in_parallel: number;
                                max_retries: number;
                                name: string;
                                retry_interval: number;
                                retry_on_goal_incomplete: boolean;
                                retry_on_voicemail: boolean;
                                /** @enum {string} */
                                status: "draft" | "in-progress" | "stopped" | "completed";
                                timezone: string;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/campaigns/update-status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start or stop a campaign (action start/stop; status is accepted when action is absent) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description start or stop (required unless status is sent)
                         * @enum {string}
                         */
                        action?: "start" | "stop";
                        /** @description an id; a string of digits is accepted too */
                        campaign_id: number | string;
                        /**
                         * @description alias of action, used only when action is absent
                         * @enum {string}
                         */
                        status?: "start" | "stop";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                campaign_id: number;
                                /** @enum {string} */
                                status: "draft" | "in-progress" | "stopped" | "completed";
                            };
                            message: string;
                            success: boolean;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                            /** @enum {boolean} */
                            success: false;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors?: {
                                [key: string]: string[];
                            };
                            message: string;
                            /** @enum {boolean} */
                            success: false;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/display-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How the dashboard shows amounts
         * @description `cost_currency`: the currency of calls' `carrier_cost` and `total_cost` (the service's COST_CURRENCY, ISO 4217).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cost_currency: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/knowledgebases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's knowledge bases, oldest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                description: string | null;
                                documents_count: number;
                                /** @description why, when status is failed */
                                error: string | null;
                                id: number;
                                name: string;
                                /**
                                 * @description empty: no documents; processing: a document is being processed; failed: every document failed (see error); else ready
                                 * @enum {string}
                                 */
                                status: "empty" | "processing" | "ready" | "failed";
                                updated_at: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a knowledge base (empty until documents are added) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string | null;
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                description: string | null;
                                documents_count: number;
                                /** @description why, when status is failed */
                                error: string | null;
                                id: number;
                                name: string;
                                /**
                                 * @description empty: no documents; processing: a document is being processed; failed: every document failed (see error); else ready
                                 * @enum {string}
                                 */
                                status: "empty" | "processing" | "ready" | "failed";
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/knowledgebases/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one of the caller's knowledge bases */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                description: string | null;
                                documents_count: number;
                                /** @description why, when status is failed */
                                error: string | null;
                                id: number;
                                name: string;
                                /**
                                 * @description empty: no documents; processing: a document is being processed; failed: every document failed (see error); else ready
                                 * @enum {string}
                                 */
                                status: "empty" | "processing" | "ready" | "failed";
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /** Rename a knowledge base or change its description */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string | null;
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                description: string | null;
                                documents_count: number;
                                /** @description why, when status is failed */
                                error: string | null;
                                id: number;
                                name: string;
                                /**
                                 * @description empty: no documents; processing: a document is being processed; failed: every document failed (see error); else ready
                                 * @enum {string}
                                 */
                                status: "empty" | "processing" | "ready" | "failed";
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a knowledge base with its documents; assistants that used it no longer have one */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/knowledgebases/{id}/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The documents of a knowledge base, oldest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                /** @description why processing failed */
                                error: string | null;
                                file_name: string | null;
                                id: number;
                                knowledgebase_id: number;
                                /** @description website: the pages read, when given as a list */
                                links: string[] | null;
                                name: string;
                                /** @description website: the pages that were read */
                                pages: string[] | null;
                                processed_at: string | null;
                                /** @description website: pages followed from the start page, 1-50 */
                                relative_links_limit: number | null;
                                /** @description bytes of the uploaded file or the text */
                                size: number | null;
                                /** @enum {string} */
                                status: "processing" | "ready" | "failed";
                                /** @enum {string} */
                                type: "website" | "text" | "pdf" | "txt" | "docx";
                                updated_at: string;
                                /** @description website: the start page */
                                url: string | null;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Add a document: a website or a text as JSON, or a file (pdf, txt, docx) as multipart/form-data
         * @description JSON: `{"type": "website", "url": …, "relative_links_limit": 1-50 (default 10)}` crawls the site from that page, staying on its origin and obeying robots.txt; `{"type": "website", "links": [...]}` reads exactly those pages; `{"type": "text", "content": …}`. multipart/form-data: a part `file` (at most KNOWLEDGE_MAX_DOCUMENT_MB, default 20 MB; 413 when larger), optional fields `type` (pdf, txt, docx; else from the file name) and `name`. The document is processed in the background: its status is `processing`, then `ready` or `failed` with the reason. Addresses the service may not reach (private, link-local, metadata) are a 422.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        content?: string;
                        links?: string[];
                        name?: string;
                        relative_links_limit?: number;
                        /** @enum {string} */
                        type: "website" | "text" | "pdf" | "txt" | "docx";
                        url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                /** @description why processing failed */
                                error: string | null;
                                file_name: string | null;
                                id: number;
                                knowledgebase_id: number;
                                /** @description website: the pages read, when given as a list */
                                links: string[] | null;
                                name: string;
                                /** @description website: the pages that were read */
                                pages: string[] | null;
                                processed_at: string | null;
                                /** @description website: pages followed from the start page, 1-50 */
                                relative_links_limit: number | null;
                                /** @description bytes of the uploaded file or the text */
                                size: number | null;
                                /** @enum {string} */
                                status: "processing" | "ready" | "failed";
                                /** @enum {string} */
                                type: "website" | "text" | "pdf" | "txt" | "docx";
                                updated_at: string;
                                /** @description website: the start page */
                                url: string | null;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/knowledgebases/{id}/documents/{documentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one document of a knowledge base */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    documentId: string;
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                /** @description why processing failed */
                                error: string | null;
                                file_name: string | null;
                                id: number;
                                knowledgebase_id: number;
                                /** @description website: the pages read, when given as a list */
                                links: string[] | null;
                                name: string;
                                /** @description website: the pages that were read */
                                pages: string[] | null;
                                processed_at: string | null;
                                /** @description website: pages followed from the start page, 1-50 */
                                relative_links_limit: number | null;
                                /** @description bytes of the uploaded file or the text */
                                size: number | null;
                                /** @enum {string} */
                                status: "processing" | "ready" | "failed";
                                /** @enum {string} */
                                type: "website" | "text" | "pdf" | "txt" | "docx";
                                updated_at: string;
                                /** @description website: the start page */
                                url: string | null;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /** Rename a document, change its source (text, URL, links) or process it again; its chunks are replaced at once when done */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    documentId: string;
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        content?: string;
                        links?: string[];
                        name?: string;
                        relative_links_limit?: number;
                        /** @description process the document again from its source (a website is crawled again) */
                        reprocess?: boolean;
                        url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunks_count: number;
                                created_at: string;
                                /** @description why processing failed */
                                error: string | null;
                                file_name: string | null;
                                id: number;
                                knowledgebase_id: number;
                                /** @description website: the pages read, when given as a list */
                                links: string[] | null;
                                name: string;
                                /** @description website: the pages that were read */
                                pages: string[] | null;
                                processed_at: string | null;
                                /** @description website: pages followed from the start page, 1-50 */
                                relative_links_limit: number | null;
                                /** @description bytes of the uploaded file or the text */
                                size: number | null;
                                /** @enum {string} */
                                status: "processing" | "ready" | "failed";
                                /** @enum {string} */
                                type: "website" | "text" | "pdf" | "txt" | "docx";
                                updated_at: string;
                                /** @description website: the start page */
                                url: string | null;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a document and its passages */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    documentId: string;
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/knowledgebases/{id}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search a knowledge base as a call does: the best passages for a question
         * @description Full-text search in PostgreSQL (every language the documents are in, accents folded, rare words weighing more, headings more than body text, a word the documents do not have standing for the words spelt most like it, by trigrams); with EMBEDDINGS_BASE_URL set, also by embedding similarity, the lists fused by reciprocal rank.
         */
        get: {
            parameters: {
                query: {
                    limit?: string;
                    q: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                chunk_id: number;
                                /** @description the whole passage */
                                content: string;
                                document_id: number;
                                document_name: string;
                                /** @description the headings above the passage, joined by › */
                                heading: string;
                                score: number;
                                /** @description the best-matching part of the passage */
                                snippet: string;
                                /** @description the page a website passage was read from */
                                source: string | null;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/lead": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a lead (with its secondary contacts) in one of the caller's campaigns */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the same, correctly spelled; used only when allow_dupplicate is absent */
                        allow_duplicate?: boolean;
                        /** @description allow a second lead with the same number in the campaign (spelled so); default false */
                        allow_dupplicate?: boolean;
                        /** @description an id; a string of digits is accepted too */
                        campaign_id: number | string;
                        /** @description E.164, or a national number of the deployment region; normalised to E.164 */
                        phone_number: string;
                        secondary_contacts?: {
                            /** @description E.164, or a national number of the deployment region; normalised to E.164 */
                            phone_number: string;
                            /** @description free-form key/value pairs (a JSON object) */
                            variables?: {
                                [key: string]: unknown;
                            } | null;
                        }[] | null;
                        /** @description free-form key/value pairs (a JSON object) */
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                campaign: {
                                    id: number;
                                    name: string;
                                };
                                campaign_id: number;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                id: number;
                                phone_number: string;
                                secondary_contacts: {
                                    created_at: string;
                                    id: number;
                                    phone_number: string;
                                    status: string;
                                    updated_at: string;
                                    variables: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @enum {string} */
                                status: "created" | "completed" | "reached-max-retries";
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/leads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's leads by id, each with campaign and secondary contacts (not paginated) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            campaign: {
                                id: number;
                                name: string;
                            };
                            campaign_id: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            created_at: string;
                            id: number;
                            phone_number: string;
                            secondary_contacts: {
                                created_at: string;
                                id: number;
                                phone_number: string;
                                status: string;
                                updated_at: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @enum {string} */
                            status: "created" | "completed" | "reached-max-retries";
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updated_at: string;
                            variables: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/leads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of the caller's leads, with campaign and secondary contacts */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                campaign: {
                                    id: number;
                                    name: string;
                                };
                                campaign_id: number;
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                created_at: string;
                                id: number;
                                phone_number: string;
                                secondary_contacts: {
                                    created_at: string;
                                    id: number;
                                    phone_number: string;
                                    status: string;
                                    updated_at: string;
                                    variables: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @enum {string} */
                                status: "created" | "completed" | "reached-max-retries";
                                /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                                updated_at: string;
                                variables: {
                                    [key: string]: unknown;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /** Update a lead: campaign_id, phone_number, status, variables (merged); other fields are refused */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description an id; a string of digits is accepted too */
                        campaign_id?: number | string;
                        /** @description normalised to E.164; an invalid number (or a non-string) answers 422 Invalid phone number */
                        phone_number?: string;
                        /** @enum {string} */
                        status?: "created" | "completed" | "reached-max-retries";
                        /** @description merged into the stored variables (top-level keys), not replacing them */
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors?: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a lead and its secondary contacts (refused with 409 while a call to it is in progress) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/leads/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import up to 1000 leads into one campaign; each row is validated on its own
         * @description Rows are lead objects as in POST /api/user/lead (phone numbers normalised to E.164). Valid rows are created together; every invalid row is reported by its index with the single create's messages, so one bad row never refuses the others. Without allow_duplicate a number the campaign already has, or an earlier row had, is an error on phone_number.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description allow numbers the campaign (or an earlier row) already has; default false */
                        allow_duplicate?: boolean;
                        /** @description an id; a string of digits is accepted too */
                        campaign_id: number | string;
                        /** @description lead objects {phone_number, variables?, secondary_contacts?} as in POST /api/user/lead, each validated on its own */
                        leads: unknown[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                created: {
                                    id: number;
                                    row: number;
                                }[];
                                errors: {
                                    errors: {
                                        [key: string]: string[];
                                    };
                                    row: number;
                                }[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/make_call": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Place an outbound call with an assistant
         * @description Dials `phone_number` (E.164) with the assistant; the call runs in the background (on the sandbox carrier when no telephony provider is configured) and can be read back with GET /api/user/calls/{call_id}. Live calls count against the account's max_calls_in_parallel (429 when exhausted).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        assistant_id: number | string;
                        phone_number: string;
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            call_id: number;
                            message: string;
                            /** @enum {string} */
                            status: "initiated";
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        } | {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The authenticated user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            email: string;
                            id: number;
                            max_calls_in_parallel: number;
                            max_tools: number;
                            name: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/phone-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's phone numbers with their names, by id */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description sandbox or twilio */
                                carrier: string;
                                country_code: string;
                                id: number;
                                is_available: boolean;
                                /** @description the owner's name for the number ("Berlin office"); null = none */
                                label: string | null;
                                phone_number: string;
                                type_label: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/phone-numbers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Name one of the caller's phone numbers (null or "" clears the name) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the new name; null or "" clears it */
                        label: string | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description sandbox or twilio */
                                carrier: string;
                                country_code: string;
                                id: number;
                                is_available: boolean;
                                /** @description the owner's name for the number ("Berlin office"); null = none */
                                label: string | null;
                                phone_number: string;
                                type_label: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/user/phone-numbers/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All of the caller's phone numbers */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                country_code: string;
                                id: number;
                                is_available: boolean;
                                phone_number: string;
                                type_label: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/provider-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's own speech-provider keys (hints only) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description `llm`: the chat server the account's assistants think with (the deployment's OPENAI_API_URL when none was given); null for the other providers */
                                base_url: string | null;
                                created_at: string;
                                /** @description the last four characters, e.g. ••••a1b2; the key itself is never shown again */
                                key_hint: string;
                                /** @enum {string} */
                                provider: "deepgram" | "elevenlabs" | "llm" | "openai";
                                updated_at: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/provider-keys/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Store (or replace) the caller's key for deepgram, elevenlabs, llm or openai; the caller's calls use it from now on
         * @description `llm` is an OpenAI-compatible chat server (`base_url`, default the deployment's OPENAI_API_URL): the caller's assistants think with it instead of the deployment's LLM (or the offline stand-in) in every call, browser call and test run. The other providers are speech vendors.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    provider: "deepgram" | "elevenlabs" | "llm" | "openai";
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        api_key: string;
                        /** @description `llm` only: the OpenAI-compatible chat server's base URL, with its version (e.g. `https://api.openai.com/v1`, `http://my-vllm:8000/v1`); left out: the deployment's OPENAI_API_URL. Private and loopback addresses are refused unless the deployment sets ALLOW_PRIVATE_TARGETS. */
                        base_url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description `llm`: the chat server the account's assistants think with (the deployment's OPENAI_API_URL when none was given); null for the other providers */
                                base_url: string | null;
                                created_at: string;
                                /** @description the last four characters, e.g. ••••a1b2; the key itself is never shown again */
                                key_hint: string;
                                /** @enum {string} */
                                provider: "deepgram" | "elevenlabs" | "llm" | "openai";
                                updated_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Remove the caller's key; calls use the deployment's again */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    provider: "deepgram" | "elevenlabs" | "llm" | "openai";
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/provider-keys/{provider}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Try a key with one real, read-only request to the vendor (OpenAI and LLM servers `GET /models`, Deepgram `GET /v1/projects`, ElevenLabs `GET /v1/user`)
         * @description Tries the caller's stored key, or the `api_key` in the body (not stored) to check a key before saving it. The request goes where the deployment sends that vendor's traffic (`OPENAI_API_URL`, `DEEPGRAM_URL`'s host, `ELEVENLABS_URL`'s host) and gives up after 10 s. The answer is 200 whether the vendor accepted the key or not: `ok` says which, `message` says what failed in words. One request per call, never retried; except `llm`: its request goes to the key's `base_url` (or the one in the body), and a server that answers 404 or 405 there (no model list) is asked for one token with `POST {base_url}/chat/completions` instead.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    provider: "deepgram" | "elevenlabs" | "llm" | "openai";
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A key to try instead of the stored one (it is not stored); leave out to try the stored key */
                        api_key?: string;
                        /** @description `llm` only: a base URL to try instead of the stored one (not stored) */
                        base_url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description the request whose answer decided, e.g. `GET https://api.openai.com/v1/models` (for `llm`, `POST …/chat/completions` when the server has no `/models`) */
                            checked: string;
                            /** @description which key was tried (its last four characters) */
                            key_hint: string;
                            /** @description how long the request took */
                            latency_ms: number;
                            /** @description for people: what worked or what failed, e.g. 'OpenAI refused the key (401 Unauthorized): …' or 'Could not reach … (connection refused).' */
                            message: string;
                            /** @description true when the vendor accepted the key */
                            ok: boolean;
                            /** @enum {string} */
                            provider: "deepgram" | "elevenlabs" | "llm" | "openai";
                            /** @description the vendor's HTTP status, when it answered */
                            status?: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's call results over a period: per day by outcome, answer rate, durations, cost, turn latency, per assistant and campaign
         * @description The period is whole days (date_from to date_to, inclusive) in `timezone` (default UTC); without dates, the last 30 days up to today. At most 366 days. Filters: assistant_id, campaign_id. Costs are in `currency` (COST_CURRENCY). Turn latency: percentiles of the replies' time from the caller's end of speech to the assistant's first audio.
         */
        get: {
            parameters: {
                query?: {
                    /** @description only this assistant's calls */
                    assistant_id?: string;
                    /** @description only this campaign's calls */
                    campaign_id?: string;
                    /** @description first day of the period, YYYY-MM-DD in `timezone` (default: 29 days before date_to) */
                    date_from?: string;
                    /** @description last day of the period, YYYY-MM-DD in `timezone`, inclusive (default: today) */
                    date_to?: string;
                    /** @description IANA time zone whose days the calls are counted in, e.g. Europe/Berlin (default UTC) */
                    timezone?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description per assistant with calls in the period, most calls first */
                            assistants: {
                                /** @description answered / finished calls (all but live ones), 0-1; null when none finished */
                                answer_rate: number | null;
                                /** @description calls a person answered */
                                answered: number;
                                /** @description mean duration of answered calls, seconds; null when none */
                                average_duration: number | null;
                                calls: number;
                                /** @description sum of total_cost, in `currency` */
                                cost: number;
                                /** @description null: calls of assistants since deleted ("Deleted assistants"), or calls outside campaigns, a deleted campaign's included ("Outside campaigns") */
                                id: number | null;
                                /** @description turn latency of the assistant's replies (call turns of kind reply with a first audio time) */
                                latency: {
                                    /** @description median time from the caller's end of speech to the assistant's first audio, ms; null without replies */
                                    p50_ms: number | null;
                                    /** @description 95th percentile of the same, ms */
                                    p95_ms: number | null;
                                    /** @description replies measured */
                                    turns: number;
                                };
                                name: string;
                            }[];
                            /** @description per campaign with calls in the period, most calls first; id null: calls outside campaigns */
                            campaigns: {
                                /** @description answered / finished calls (all but live ones), 0-1; null when none finished */
                                answer_rate: number | null;
                                /** @description calls a person answered */
                                answered: number;
                                /** @description mean duration of answered calls, seconds; null when none */
                                average_duration: number | null;
                                calls: number;
                                /** @description sum of total_cost, in `currency` */
                                cost: number;
                                /** @description null: calls of assistants since deleted ("Deleted assistants"), or calls outside campaigns, a deleted campaign's included ("Outside campaigns") */
                                id: number | null;
                                /** @description turn latency of the assistant's replies (call turns of kind reply with a first audio time) */
                                latency: {
                                    /** @description median time from the caller's end of speech to the assistant's first audio, ms; null without replies */
                                    p50_ms: number | null;
                                    /** @description 95th percentile of the same, ms */
                                    p95_ms: number | null;
                                    /** @description replies measured */
                                    turns: number;
                                };
                                name: string;
                            }[];
                            /** @description ISO 4217 code of every cost (the service's COST_CURRENCY) */
                            currency: string;
                            /** @description YYYY-MM-DD */
                            date_from: string;
                            /** @description YYYY-MM-DD, inclusive */
                            date_to: string;
                            /** @description every day of the period, oldest first, days without calls included */
                            days: {
                                calls: number;
                                cost: number;
                                /** @description YYYY-MM-DD in `timezone` */
                                day: string;
                                /** @description calls of the day by outcome (every key present) */
                                outcomes: {
                                    [key: string]: number;
                                };
                            }[];
                            /** @description the outcome keys, in chart order */
                            outcomes: ("answered" | "voicemail" | "no-answer" | "busy" | "failed" | "not-connected" | "live")[];
                            timezone: string;
                            totals: {
                                /** @description answered / finished calls (all but live ones), 0-1; null when none finished */
                                answer_rate: number | null;
                                /** @description calls a person answered */
                                answered: number;
                                /** @description mean duration of answered calls, seconds; null when none */
                                average_duration: number | null;
                                calls: number;
                                /** @description sum of total_cost, in `currency` */
                                cost: number;
                                /** @description calls that are not live */
                                finished: number;
                                /** @description turn latency of the assistant's replies (call turns of kind reply with a first audio time) */
                                latency: {
                                    /** @description median time from the caller's end of speech to the assistant's first audio, ms; null without replies */
                                    p50_ms: number | null;
                                    /** @description 95th percentile of the same, ms */
                                    p95_ms: number | null;
                                    /** @description replies measured */
                                    turns: number;
                                };
                                voicemail: number;
                            };
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/sandbox/inbound-call": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate an inbound call on the sandbox carrier
         * @description `to` is one of your numbers held by an active inbound assistant; the last two digits of `from` choose the caller's behaviour (91 busy, 92 no-answer, 93 failed, 94 voicemail, 95 hangs up mid-conversation, otherwise a conversing person).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            call_id: number;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/test-runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A test run with every scenario and repeat so far: transcript, tool requests, turn timings, each assertion with expected and actual */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                assistant_id: number;
                                assistant_overrides: {
                                    [key: string]: unknown;
                                } | null;
                                assistant_version: number | null;
                                created_at: string;
                                error: string | null;
                                errored: number;
                                failed: number;
                                finished_at: string | null;
                                id: number;
                                passed: number;
                                scenarios: {
                                    name: string;
                                    pass_rate: number;
                                    position: number;
                                    repeat: number;
                                    repeats: {
                                        assertions: unknown[];
                                        duration_ms: number;
                                        end_status: string | null;
                                        error: string | null;
                                        repeat: number;
                                        /** @enum {string} */
                                        status: "passed" | "failed" | "error";
                                        tool_requests: unknown[];
                                        transcript: unknown[];
                                        turns: unknown[];
                                        variables: {
                                            [key: string]: unknown;
                                        };
                                    }[];
                                    scenario_id: number | null;
                                    source: string;
                                    /** @enum {string} */
                                    status: "pending" | "passed" | "failed" | "error";
                                }[];
                                started_at: string | null;
                                /** @enum {string} */
                                status: "queued" | "running" | "passed" | "failed" | "error";
                                total: number;
                                unsaved_changes: boolean;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your API tokens, oldest first, revoked ones included (never the token itself) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description ISO 8601 */
                                created_at: string;
                                /** @description the token of this request */
                                current: boolean;
                                id: number;
                                /** @description ISO 8601; null while the token works */
                                revoked_at: string | null;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /** Issue another API token for yourself; it is shown once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: number;
                                token: string;
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one of your API tokens at once (also the one of this request) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's mid-call tools, oldest first (not paginated) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description ISO 8601 with microseconds, e.g. 2026-11-22T10:30:00.123456Z */
                            created_at: string;
                            description: string;
                            endpoint: string;
                            headers: {
                                name: string;
                                value: string;
                            }[];
                            id: number;
                            /** @enum {string} */
                            method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                            name: string;
                            schema: {
                                description: string;
                                name: string;
                                /** @enum {string} */
                                type: "string" | "number" | "boolean";
                            }[];
                            /** @description seconds, 1-30 */
                            timeout: number;
                            /** @description ISO 8601 with microseconds */
                            updated_at: string;
                        }[];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a mid-call tool (within the plan limit max_tools)
         * @description A 422 for invalid fields carries `errors` keyed by field (`schema.0.name`); its message is the first error plus "(and N more errors)". Reaching the plan limit is a 422 with `message` only.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description When and how the AI should use the tool, max 255 characters */
                        description: string;
                        /** @description http(s) URL the tool request goes to */
                        endpoint: string;
                        /** @description HTTP headers sent with the tool request */
                        headers?: {
                            name: string;
                            value: string;
                        }[] | null;
                        /** @enum {string} */
                        method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                        /** @description Lowercase letters and underscores, begins with a letter */
                        name: string;
                        /** @description Parameters the AI extracts from the conversation and sends to the endpoint */
                        schema?: {
                            description: string;
                            name: string;
                            /** @enum {string} */
                            type: "string" | "number" | "boolean";
                        }[] | null;
                        /** @description Seconds, 1-30, default 10 */
                        timeout?: number | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description ISO 8601 with microseconds, e.g. 2026-11-22T10:30:00.123456Z */
                                created_at: string;
                                description: string;
                                endpoint: string;
                                headers: {
                                    name: string;
                                    value: string;
                                }[];
                                id: number;
                                /** @enum {string} */
                                method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                                name: string;
                                schema: {
                                    description: string;
                                    name: string;
                                    /** @enum {string} */
                                    type: "string" | "number" | "boolean";
                                }[];
                                /** @description seconds, 1-30 */
                                timeout: number;
                                /** @description ISO 8601 with microseconds */
                                updated_at: string;
                            };
                            /** @enum {string} */
                            message: "Tool erfolgreich erstellt";
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        } | {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tools/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one of the caller's tools */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description ISO 8601 with microseconds, e.g. 2026-11-22T10:30:00.123456Z */
                            created_at: string;
                            description: string;
                            endpoint: string;
                            headers: {
                                name: string;
                                value: string;
                            }[];
                            id: number;
                            /** @enum {string} */
                            method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                            name: string;
                            schema: {
                                description: string;
                                name: string;
                                /** @enum {string} */
                                type: "string" | "number" | "boolean";
                            }[];
                            /** @description seconds, 1-30 */
                            timeout: number;
                            /** @description ISO 8601 with microseconds */
                            updated_at: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        /** Update a tool: only supplied fields change; headers and schema, when supplied, replace the stored ones */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string;
                        endpoint?: string;
                        /** @description Replaces the stored headers */
                        headers?: {
                            name: string;
                            value: string;
                        }[] | null;
                        /** @enum {string} */
                        method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                        name?: string;
                        /** @description Replaces the stored schema */
                        schema?: {
                            description: string;
                            name: string;
                            /** @enum {string} */
                            type: "string" | "number" | "boolean";
                        }[] | null;
                        timeout?: number | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description ISO 8601 with microseconds, e.g. 2026-11-22T10:30:00.123456Z */
                                created_at: string;
                                description: string;
                                endpoint: string;
                                headers: {
                                    name: string;
                                    value: string;
                                }[];
                                id: number;
                                /** @enum {string} */
                                method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                                name: string;
                                schema: {
                                    description: string;
                                    name: string;
                                    /** @enum {string} */
                                    type: "string" | "number" | "boolean";
                                }[];
                                /** @description seconds, 1-30 */
                                timeout: number;
                                /** @description ISO 8601 with microseconds */
                                updated_at: string;
                            };
                            /** @enum {string} */
                            message: "Tool erfolgreich aktualisiert";
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a tool; it is detached from every assistant */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tools/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send one request to a tool's endpoint as a call would, and see the answer
         * @description The request goes out exactly as during a call (method, headers, timeout, arguments in the query for GET/DELETE or as JSON otherwise) and through the same outbound guard (private targets only with ALLOW_PRIVATE_TARGETS).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description the tool's parameters by name, as the LLM would send them; default {} */
                        arguments?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                duration_ms: number;
                                /** @description the endpoint answered with a 2xx status */
                                ok: boolean;
                                /** @description what the LLM would read: {status, body, truncated?} or {error} */
                                result: {
                                    [key: string]: unknown;
                                };
                                /** @description HTTP status of the answer; null when there was none */
                                status: number | null;
                            };
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/web-calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a browser call with an assistant
         * @description Creates a call of type `web` and answers the path of its media WebSocket with a one-time token valid for `expires_in` seconds. `mode` `audio` (the default) is granted when speech is available, else the call is a typed conversation (`mode: text`). The call takes one of max_calls_in_parallel when the page connects (429 here when they are all taken already). A page that never connects ends the call as failed.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        assistant_id: number | string;
                        /** @enum {string} */
                        mode?: "audio" | "text";
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            call_id: number;
                            expires_in: number;
                            media_path: string;
                            /** @enum {string} */
                            mode: "audio" | "text";
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        } | {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/web-calls/capabilities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether browser calls can be spoken here, and who answers
         * @description `speech` is false when no speech-to-text provider is configured for the caller (the deployment's, or the account's own key): browser calls are then typed conversations with the same engine. `offline_llm` is true when no LLM is configured and the caller has stored no LLM key of their own (Provider keys): replies come from the offline stand-in (a few canned lines), not a model.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            offline_llm: boolean;
                            speech: boolean;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/webhook-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The secret that signs your webhooks (Standard Webhooks, `whsec_...`) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Standard Webhooks signing secret, `whsec_` + base64 */
                            secret: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/webhook-secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the signing secret; every later attempt (retries included) is signed with the new one */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Standard Webhooks signing secret, `whsec_` + base64 */
                            secret: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/widget-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a widget key */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/carriers/twilio/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Twilio's media stream of a call (WebSocket)
         * @description A WebSocket speaking Twilio's Media Streams protocol (connected, start, media, dtmf, mark, stop; the service sends media, mark and clear). Twilio opens it as the TwiML of a call tells it; the credential is in the `start` message, not the URL: its customParameters `call` (our call id) and `token` (the call's one-time media token), and its callSid must be the call's. The stream is then the call's on whichever instance it reached. Closed with 1008 when the first message is not `start`, no `start` arrived within WS_START_TIMEOUT (5 s), a message is malformed, or the token is wrong or used; 1011 on a server error. Pinged every WS_HEARTBEAT_INTERVAL (20 s): a socket that answered no ping by the next is dropped.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Switching Protocols: the WebSocket is open (send `Connection: Upgrade`, `Upgrade: websocket`) */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description A plain GET, without the WebSocket upgrade */
                426: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Too many sockets of this process or address have not proven themselves yet (Retry-After says when to try again) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/carriers/twilio/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Twilio's status and answering-machine callbacks of a call
         * @description The statusCallback (and asyncAmdStatusCallback) the service gives Twilio when it places a call: the call's progress (ringing, answered, busy, no-answer, failed, canceled, completed) and what answered it. Verified with the auth token of the call's account.
         */
        post: {
            parameters: {
                query: {
                    /** @description Set on the asynchronous answering-machine callback; that callback's verdict is its AnsweredBy field */
                    amd?: "1";
                    /** @description The id of our call, set by the service in the callback URL it gave Twilio; an unknown call is refused with 403 */
                    call: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /** @description The Twilio account; when present it must be the account whose auth token verified the signature, else 403 */
                        AccountSid?: string;
                        /** @description The answering-machine verdict: human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax or unknown */
                        AnsweredBy?: string;
                        /** @description Twilio's id of the call; once the call has one, another is refused with 403 */
                        CallSid?: string;
                        /** @description queued, initiated, ringing, in-progress, busy, no-answer, failed, canceled or completed; the first two are ignored */
                        CallStatus?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Taken */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description An unknown call, another call's CallSid, or a signature that does not verify with the call's account */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description A form over 64 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Calls are not running on this instance */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/carriers/twilio/voice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Twilio's webhook for an incoming call
         * @description Set as the Voice webhook (HTTP POST) of the Twilio numbers. Answers TwiML: `<Connect><Stream>` to this service's media socket (GET /carriers/twilio/media, with the call's id and one-time token as stream parameters) when the number's assistant takes the call, else a spoken apology and `<Hangup/>` (no assistant holds the number, the assistant is not active, the account's parallel-call limit is reached, the instance is shutting down).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /** @description The Twilio account; when present it must be the account whose auth token verified the signature, else 403 */
                        AccountSid?: string;
                        /** @description Read when To is absent */
                        Called?: string;
                        /** @description Read when From is absent */
                        Caller?: string;
                        /** @description Twilio's id of the call (CA…), kept as the call's carrier id */
                        CallSid?: string;
                        /** @description The caller's number */
                        From?: string;
                        /** @description The number called (E.164): it must be a number of an account, with an assistant, for the call to be taken */
                        To?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description TwiML: the call connected to the media stream, or a polite refusal */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/xml": string;
                    };
                };
                /** @description The signature does not verify with the account of the number called */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description A form over 64 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Calls are not running on this instance */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process answers
         * @description Needs nothing else (no database): a load balancer or orchestrator restarts an instance that stops answering.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics of this instance
         * @description The Prometheus text exposition format: calls, dialer, webhook deliveries, HTTP requests by route pattern, the database pool. The bearer token is METRICS_TOKEN when set, or the admin token; a user token is refused (401).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The exposition, never cached */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain; version=0.0.4; charset=utf-8": string;
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI document
         * @description The routes this instance serves: GET /recordings/{file} only where there is a deployment key (SECRET_KEY, or the embedded setup’s generated one).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description An OpenAPI 3.1 document */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: this instance takes new work
         * @description 503 while the instance drains after SIGTERM (its live calls go on) or while the database is unreachable.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ready";
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/recordings/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A call's recording (signed link)
         * @description The `recording_url` of a call, as the API and webhooks give it: a link signed with the deployment's key, valid until `expires`, needing no token. Answers the recording as a WAV file. Served only where there is a deployment key (SECRET_KEY, or the embedded setup's generated one).
         */
        get: {
            parameters: {
                query: {
                    /** @description Until when the link is valid (Unix seconds) */
                    expires: string;
                };
                header?: never;
                path: {
                    /** @description `{call id}.wav` */
                    file: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The recording */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "audio/wav": string;
                    };
                };
                /** @description The link is altered or has expired */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description No such recording (or its call was deleted) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/web-calls/{id}/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The media WebSocket of a browser call
         * @description A WebSocket: open it with the `media_path` from POST /api/user/web-calls or POST /widget/calls (protocol in src/telephony/web/protocol.ts). The one-time `token` is the credential, browsers cannot send a bearer token on a WebSocket. Closed with code 4401 when the token is wrong, used or expired, 4409 when the call is no longer waiting, 4429 when the owner’s calls (for a widget call: its key’s share, WIDGET_KEY_SHARE) fill max_calls_in_parallel — the slot is taken here, when the page connects, not when the call is created — 1008 when the token could not be checked within WS_START_TIMEOUT (5 s). Pinged every WS_HEARTBEAT_INTERVAL (20 s): a socket that answered no ping by the next is dropped.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Switching Protocols: the WebSocket is open (send `Connection: Upgrade`, `Upgrade: websocket`) */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description A plain GET, without the WebSocket upgrade */
                426: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Too many sockets of this process or address have not proven themselves yet (Retry-After says when to try again) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widget/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a call from the widget on a visitor’s page
         * @description Public: authorised by a widget key and the page’s `Origin`, never by an API token. Answers like POST /api/user/web-calls; open `media_path` on this service.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        /** @enum {string} */
                        mode?: "audio" | "text";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            call_id: number;
                            expires_in: number;
                            media_path: string;
                            /** @enum {string} */
                            mode: "audio" | "text";
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        } | {
                            errors: {
                                [key: string]: string[];
                            };
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
